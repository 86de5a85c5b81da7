/// A usage error: a bad flag or value. Tools exit 64 (EX_USAGE) on it.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A file the user named (config, capture, password, TLS file) that cannot be read: a
/// failure, exit 1, not a usage error. The message names the file.
public struct ReadFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What the command line asked for.
public enum ParseResult {
    case run(Arguments)
    case help
    case version
}

/// Parsed arguments with typed accessors; defaults come from the option table.
public struct Arguments {
    public let command: Command
    public let positionals: [String]
    private let values: [String: [String]]

    /// Arguments with these values by option name (a flag given: any value), as a tool that
    /// merges a config file under its flags builds them; defaults still come from the table.
    public init(command: Command, values: [String: [String]], positionals: [String] = []) {
        self.command = command
        self.values = values
        self.positionals = positionals
    }

    /// Whether the option was given on the command line (defaults do not count).
    public func isSet(_ name: String) -> Bool { values[name] != nil }

    public func flag(_ name: String) -> Bool { values[name] != nil }

    /// The value given, else the table's default.
    public func string(_ name: String) -> String? {
        values[name]?.last ?? command.options.first { $0.name == name }?.defaultValue
    }

    public func strings(_ name: String) -> [String] { values[name] ?? [] }

    public func require(_ name: String) throws(UsageError) -> String {
        guard let v = string(name) else { throw UsageError("missing required option --\(name)") }
        return v
    }

    public func int(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(UsageError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("--\(name) expects a whole number in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return v
    }

    public func double(_ name: String, in range: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude) throws(UsageError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let v = Double(text), v.isFinite, range.contains(v) else {
            throw UsageError("--\(name) expects a number in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return v
    }

    /// Exactly one of the named options must be given.
    public func oneOf(_ names: [String]) throws(UsageError) -> String {
        let given = names.filter { values[$0] != nil }
        guard given.count == 1 else {
            let list = names.map { "--\($0)" }.joined(separator: ", ")
            throw UsageError(given.isEmpty ? "one of \(list) is required" : "only one of \(list) may be given")
        }
        return given[0]
    }
}

extension Command {
    /// Parses `--name value`, `--name=value`, flags, `--` and positionals.
    public func parse(_ arguments: [String]) throws(UsageError) -> ParseResult {
        var values: [String: [String]] = [:]
        var positionals: [String] = []
        var index = arguments.startIndex
        var optionsEnded = false
        while index < arguments.endIndex {
            let arg = arguments[index]
            index += 1
            if optionsEnded || !arg.hasPrefix("-") || arg == "-" {
                positionals.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            if arg == "-h" { return .help }
            guard arg.hasPrefix("--") else { throw UsageError("unknown option '\(arg)' (see --help)") }
            var name = String(arg.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '--\(name)' (see --help)")
            }
            if name == "help" { return .help }
            if name == "version" { return .version }
            if option.isFlag {
                if inline != nil { throw UsageError("--\(name) takes no value") }
                values[name, default: []].append("")
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < arguments.endIndex else { throw UsageError("--\(name) needs a value \(option.valueName ?? "")") }
                value = arguments[index]
                index += 1
            }
            if values[name] != nil && !option.repeatable { throw UsageError("--\(name) given twice") }
            values[name, default: []].append(value)
        }
        if positionals.count > 0 && self.positionals == nil {
            throw UsageError("unexpected argument '\(positionals[0])' (see --help)")
        }
        return .run(Arguments(command: self, values: values, positionals: positionals))
    }
}
