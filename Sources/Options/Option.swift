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
    /// Shown bare in the usage line, not in brackets: the command needs it (or, in a group,
    /// one of the group).
    public var required = false
    /// Options of one group are alternatives: the usage line shows them as `(--a X | --b)`.
    public var group: String?

    public static func flag(_ name: String, help: String, required: Bool = false, group: String? = nil) -> Option {
        Option(name: name, valueName: nil, help: help, defaultValue: nil, repeatable: false, required: required, group: group)
    }

    public static func value(_ name: String, _ valueName: String, help: String,
                             default defaultValue: String? = nil, repeatable: Bool = false,
                             required: Bool = false, group: String? = nil) -> Option {
        Option(name: name, valueName: valueName, help: help, defaultValue: defaultValue, repeatable: repeatable,
               required: required, group: group)
    }

    /// `--name VALUE`, or `--name` for a flag.
    var synopsis: String { "--\(name)" + (valueName.map { " \($0)" } ?? "") }

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

    /// A command whose usage line is generated from its table (`usageLines`); `usageNote` is
    /// added after it (`(stdin: H4 hex lines)`).
    public init(name: String, abstract: String, options: [Option], positionals: String? = nil,
                usageNote: String? = nil, discussion: String? = nil) {
        var lines = Self.usageLines(name: name, options: options, positionals: positionals)
        if let usageNote { lines[lines.count - 1] += "      " + usageNote }
        self.init(name: name, abstract: abstract, usage: lines,
                  options: options, positionals: positionals, discussion: discussion)
    }

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

extension Command {
    /// The width usage lines wrap at, and the most lines that may list every option: a longer
    /// synopsis shows `[options]` instead of the optional ones.
    static let usageWidth = 100, usageMaxLines = 3

    /// `name --site FILE (--a X | --b) [--c N] [--d] POSITIONALS`: required options bare,
    /// alternatives of a group together, optional ones in brackets, in table order; wrapped
    /// under the first option.
    public static func usageLines(name: String, options: [Option], positionals: String?) -> [String] {
        var required: [String] = [], optional: [String] = []
        var groupsDone: Set<String> = []
        for option in options {
            guard let group = option.group else {
                if option.required { required.append(option.synopsis) } else { optional.append("[\(option.synopsis)]") }
                continue
            }
            guard groupsDone.insert(group).inserted else { continue }
            let members = options.filter { $0.group == group }
            let alternatives = members.map(\.synopsis).joined(separator: " | ")
            if members.contains(where: \.required) { required.append("(\(alternatives))") } else { optional.append("[\(alternatives)]") }
        }
        let tail = positionals.map { [$0] } ?? []
        let lines = wrap(name, required + optional + tail)
        return lines.count <= usageMaxLines ? lines : wrap(name, required + ["[options]"] + tail)
    }

    private static func wrap(_ name: String, _ words: [String]) -> [String] {
        let indent = String(repeating: " ", count: name.count + 1)
        var lines: [String] = [], line = name
        for word in words {
            if line.count + 1 + word.count > usageWidth && line != name && line != indent {
                lines.append(line)
                line = indent + word
            } else {
                line += (line == indent ? "" : " ") + word
            }
        }
        return lines + [line]
    }
}
