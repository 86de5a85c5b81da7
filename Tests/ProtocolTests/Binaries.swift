import Foundation

/// The built products (beside this test bundle, or in `$WHEREABOUTS_BIN` as `make test` sets),
/// run as a user runs them.
enum Binaries {
    static let directory: String = {
        if let dir = ProcessInfo.processInfo.environment["WHEREABOUTS_BIN"], !dir.isEmpty { return dir }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while dir.path.contains(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.path
    }()

    static func path(_ name: String) throws -> String {
        let path = directory + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw DocError("\(path) is not built (swift build, or set WHEREABOUTS_BIN)")
        }
        return path
    }

    /// `binary [command] --help`, which must exit 0.
    static func help(_ binary: String, _ command: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path(binary))
        process.arguments = command + ["--help"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw DocError("\(binary) \(command) --help exited \(process.terminationStatus): \(text)") }
        return text
    }

    /// The synopsis a help text shows, from `usage: ` to the first blank line, in full: where
    /// a long one says `[options]`, each option of its `options:` list that the line does not
    /// show (but `--help` and `--version`) as `[--flag VALUE]`, in the list's (the table's) order.
    static func synopsis(_ help: String) throws -> String {
        guard let start = help.range(of: "usage: ") else { throw DocError("the help shows no usage: \(help)") }
        let rest = help[start.upperBound...]
        let usage = String(rest[..<(rest.range(of: "\n\n")?.lowerBound ?? rest.endIndex)])
        guard usage.contains("[options]") else { return usage }
        let shown = Set(usage.split(whereSeparator: { " ()[]|".contains($0) }).filter { $0.hasPrefix("--") })
        let optional = options(help).filter { option in
            let flag = option.split(separator: " ")[0]
            return !shown.contains(flag) && flag != "--help" && flag != "--version"
        }
        return usage.replacingOccurrences(of: "[options]", with: optional.map { "[\($0)]" }.joined(separator: " "))
    }

    /// `--flag VALUE` of each line of a help's `options:` list, in order.
    static func options(_ help: String) -> [String] {
        guard let start = help.range(of: "\noptions:\n") else { return [] }
        return help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
            .filter { $0.hasPrefix("  --") }
            .map { String($0.dropFirst(2).components(separatedBy: "  ")[0]) }
    }
}
