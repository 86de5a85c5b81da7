import Options

func runAccuracy(_ arguments: [String]) -> Int32 {
    printError("whereabouts: this command is not implemented yet")
    return ExitCode.failure
}
