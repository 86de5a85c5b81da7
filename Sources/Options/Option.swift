/// One command-line option: a flag (`--print`) or an option with a value (`--node NAME`).
///
/// The table of options is the single source of a command's parsing, defaults and `--help`.
public struct Option: Sendable, Equatable {
    /// The long name, without the leading dashes.
    public let name: String
    /// The placeholder shown in help (`NAME`, `URL`); `nil` for a flag.
    public let valueName: String?
    public let help: String
    /// The value used when the option is absent, shown in help.
    public let defaultValue: String?
    /// May be given several times (`--include A --include B`).
    public let repeatable: Bool

    public static func flag(_ name: String, help: String) -> Option {
        Option(name: name, valueName: nil, help: help, defaultValue: nil, repeatable: false)
    }

    public static func value(_ name: String, _ valueName: String, help: String,
                             default defaultValue: String? = nil, repeatable: Bool = false) -> Option {
        Option(name: name, valueName: valueName, help: help, defaultValue: defaultValue, repeatable: repeatable)
    }

    public var isFlag: Bool { valueName == nil }
}

/// A command: its name, what it does, its synopsis and its option table.
public struct Command: Sendable {
    public let name: String
    public let abstract: String
    /// Synopsis lines shown after `usage:`.
    public let usage: [String]
    public let options: [Option]
    /// Name of the positional arguments in help (`FILE`), `nil` if none are accepted.
    public let positionals: String?
    /// More text shown at the end of `--help`.
    public let discussion: String?

    public init(name: String, abstract: String, usage: [String], options: [Option],
                positionals: String? = nil, discussion: String? = nil) {
        self.name = name
        self.abstract = abstract
        self.usage = usage
        self.options = options + [.flag("help", help: "Show this help and exit."),
                                  .flag("version", help: "Show the version and exit.")]
        self.positionals = positionals
        self.discussion = discussion
    }

    /// `--help` text, generated from the option table.
    public var helpText: String {
        var out = "\(name) — \(abstract)\n\nusage: "
        out += usage.joined(separator: "\n       ") + "\n\noptions:\n"
        let labels = options.map { o in "--\(o.name)" + (o.valueName.map { " \($0)" } ?? "") }
        let width = min((labels.map(\.count).max() ?? 0) + 2, 28)
        for (label, option) in zip(labels, options) {
            var line = "  " + label
            line += label.count + 2 < width ? String(repeating: " ", count: width - label.count) : "\n" + String(repeating: " ", count: width + 2)
            line += option.help
            if let d = option.defaultValue { line += " (default: \(d))" }
            out += line + "\n"
        }
        if let discussion { out += "\n" + discussion + "\n" }
        return out
    }
}
