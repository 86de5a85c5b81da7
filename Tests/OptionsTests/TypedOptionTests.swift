import Testing
@testable import Options

private enum Format: String, CaseIterable, Sendable { case csv, json }

/// A command's options as the tools declare them: one declaration per option.
private struct ToolOptions {
    static let site = Opt<String>.required("site", "FILE", help: "The site.")
    static let every = Opt<Double>.number("every", "S", help: "Seconds.", in: 0...60, default: 10)
    static let noise = Opt<Double>.number("noise", "N", help: "Noise.", in: 0...1, default: 0.05)
    static let limit = Opt<Double?>.number("for", "S", help: "Stop after.", in: 0...100)
    static let format = Opt.choice("format", help: "Output.", default: Format.csv)
    static let include = Opt<[String]>.list("include", "GLOB", help: "Ids.")
    static let quiet = Opt<Bool>.flag("quiet", help: "Say less.")
    static let command = Command(name: "tool", abstract: "a test tool",
                                 options: [site.option, every.option, noise.option, limit.option, format.option, include.option, quiet.option])

    let site: String, every: Double, noise: Double, limit: Double?, format: Format, include: [String], quiet: Bool
    init(_ a: Arguments) throws(UsageError) {
        site = try a.get(Self.site); every = try a.get(Self.every); noise = try a.get(Self.noise); limit = try a.get(Self.limit)
        format = try a.get(Self.format); include = try a.get(Self.include); quiet = try a.get(Self.quiet)
    }
}

private func parse(_ args: [String]) throws(UsageError) -> ToolOptions {
    guard case .run(let parsed) = try ToolOptions.command.parse(args) else { throw UsageError("not a run") }
    return try ToolOptions(parsed)
}

@Test func typedValuesComeFromTheFlagsElseTheDeclaredDefault() throws {
    let given = try parse(["--site", "s.yaml", "--every", "2.5", "--for", "3", "--format", "json", "--include", "a", "--include", "b", "--quiet"])
    #expect(given.site == "s.yaml" && given.every == 2.5 && given.limit == 3 && given.format == .json)
    #expect(given.include == ["a", "b"] && given.quiet)
    let defaults = try parse(["--site", "s.yaml"])
    #expect(defaults.every == 10 && defaults.noise == 0.05 && defaults.limit == nil && defaults.format == .csv)
    #expect(defaults.include.isEmpty && !defaults.quiet)
}

@Test(arguments: [
    ([], "missing required option --site"),
    (["--site", "s", "--every", "61"], "--every expects a number in 0.0...60.0, got '61'"),
    (["--site", "s", "--format", "xml"], "--format expects one of csv, json, got 'xml'"),
])
func typedValuesRefuseBadInput(args: [String], message: String) {
    #expect(throws: UsageError(message)) { try parse(args) }
}

@Test func helpShowsEachDefaultAsDeclaredAndChoicesAsPlaceholder() {
    let help = ToolOptions.command.helpText
    #expect(help.contains("Seconds. (default: 10)\n"))
    #expect(help.contains("Noise. (default: 0.05)\n"))
    #expect(help.contains("--format csv|json"))
    #expect(help.contains("Output. (default: csv)"))
}

@Test func theUsageLineIsMadeFromTheTable() {
    #expect(ToolOptions.command.usage == ["tool --site FILE [--every S] [--noise N] [--for S] [--format csv|json] [--include GLOB] [--quiet]"])
    let grouped = Command(name: "t", abstract: "", options: [
        .value("node", "NAME", help: "", required: true),
        .value("adapter", "DEV", help: "", required: true, group: "source"),
        .flag("stdin", help: "", required: true, group: "source"),
        .value("hex", "HEX", help: "", group: "input"), .value("ad", "HEX", help: "", group: "input"),
    ], positionals: "FILE", usageNote: "(note)")
    #expect(grouped.usage == ["t --node NAME (--adapter DEV | --stdin) [--hex HEX | --ad HEX] FILE      (note)"])
}

@Test func aLongUsageWrapsUnderTheFirstOptionAndAVeryLongOneShowsOptions() {
    let some = (1...9).map { Option.value("option-\($0)", "VALUE", help: "") }
    let wrapped = Command.usageLines(name: "tool", options: some, positionals: nil)
    #expect(wrapped.count == 2 && wrapped.allSatisfy { $0.count <= Command.usageWidth })
    #expect(wrapped[1].hasPrefix("     [--option-"))
    let many = [Option.value("node", "NAME", help: "", required: true)] + (1...40).map { Option.value("option-\($0)", "VALUE", help: "") }
    #expect(Command.usageLines(name: "tool", options: many, positionals: nil) == ["tool --node NAME [options]"])
}

@Test func argumentsMadeFromMergedValuesReadLikeParsedOnes() throws {
    let a = Arguments(command: ToolOptions.command, values: ["site": ["from-file.yaml"], "quiet": ["true"]])
    let o = try ToolOptions(a)
    #expect(o.site == "from-file.yaml" && o.quiet && o.every == 10)
}
