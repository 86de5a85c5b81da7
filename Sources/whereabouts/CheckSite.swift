import Options

func runCheckSite(_ arguments: [String]) -> Int32 {
    printError("whereabouts: this command is not implemented yet")
    return ExitCode.failure
}
