import Options

func runDecode(_ arguments: [String]) -> Int32 {
    printError("whereabouts: this command is not implemented yet")
    return ExitCode.failure
}
