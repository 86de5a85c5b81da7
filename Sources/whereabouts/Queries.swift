import Options

// history, visits, occupancy, devices: queries over the aggregator's SQLite file.
func runHistory(_ arguments: [String]) -> Int32 { notYet() }
func runVisits(_ arguments: [String]) -> Int32 { notYet() }
func runOccupancy(_ arguments: [String]) -> Int32 { notYet() }
func runDevices(_ arguments: [String]) -> Int32 { notYet() }

private func notYet() -> Int32 {
    printError("whereabouts: this command is not implemented yet")
    return ExitCode.failure
}
