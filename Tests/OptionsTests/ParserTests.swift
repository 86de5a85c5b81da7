import Testing
@testable import Options

private let command = Command(
    name: "tool", abstract: "a test tool", usage: ["tool --node NAME"],
    options: [
        .value("node", "NAME", help: "Node name."),
        .value("qos", "0|1", help: "QoS.", default: "0"),
        .value("include", "GLOB", help: "Include ids.", repeatable: true),
        .flag("print", help: "Print."),
    ],
    positionals: "FILE")

private func run(_ args: [String]) throws(UsageError) -> Arguments {
    guard case .run(let parsed) = try command.parse(args) else { throw UsageError("not a run") }
    return parsed
}

@Test func valuesFlagsAndDefaults() throws {
    let a = try run(["--node", "kitchen", "--print", "--include=iBeacon:*", "--include", "mac:*", "x.log"])
    #expect(a.string("node") == "kitchen")
    #expect(a.flag("print"))
    #expect(a.strings("include") == ["iBeacon:*", "mac:*"])
    #expect(a.positionals == ["x.log"])
    #expect(try a.int("qos", in: 0...1) == 0)
    #expect(!a.isSet("qos"))
}

@Test(arguments: [
    (["--nope"], "unknown option '--nope' (see --help)"),
    (["--node"], "--node needs a value NAME"),
    (["--node", "a", "--node", "b"], "--node given twice"),
    (["--print=yes"], "--print takes no value"),
    (["-x"], "unknown option '-x' (see --help)"),
])
func usageErrors(args: [String], message: String) {
    #expect(throws: UsageError(message)) { try command.parse(args) }
}

@Test func badNumbersAreUsageErrors() throws {
    let a = try run(["--qos", "2"])
    #expect(throws: UsageError("--qos expects a whole number in 0...1, got '2'")) { try a.int("qos", in: 0...1) }
}

@Test func helpAndVersion() throws {
    guard case .help = try command.parse(["--node", "a", "--help"]) else { Issue.record("expected help"); return }
    guard case .version = try command.parse(["--version"]) else { Issue.record("expected version"); return }
    #expect(command.helpText.contains("--qos 0|1"))
    #expect(command.helpText.contains("(default: 0)"))
}

@Test func oneOfRequiresExactlyOne() throws {
    let none = try run([])
    #expect(throws: UsageError("one of --node, --print is required")) { try none.oneOf(["node", "print"]) }
    let both = try run(["--node", "a", "--print"])
    #expect(throws: UsageError("only one of --node, --print may be given")) { try both.oneOf(["node", "print"]) }
    #expect(try run(["--print"]).oneOf(["node", "print"]) == "print")
}
