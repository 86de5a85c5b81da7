/// A typed option: its table entry (name, placeholder, help, the default shown in help) and how
/// its text becomes a value, from one declaration, so the default is stated once.
///
/// A command declares its options as `static let`s of an options struct, builds its `Command`
/// from their `option`s (help and usage come from that table) and reads each value once,
/// typed, with `Arguments.get`:
///
///     struct LocateOptions {
///         static let site = Opt<String>.required("site", "FILE", help: "The site file (YAML).")
///         static let acceleration = Opt<Double>.number("acceleration", "NOISE", help: "…", in: 0...1e12, default: 0.05)
///         let site: String, acceleration: Double
///         init(_ a: Arguments) throws(UsageError) { site = try a.get(Self.site); acceleration = try a.get(Self.acceleration) }
///     }
public struct Opt<Value>: Sendable {
    public let option: Option
    private let read: @Sendable (Arguments) throws(UsageError) -> Value

    public init(_ option: Option, read: @escaping @Sendable (Arguments) throws(UsageError) -> Value) {
        self.option = option
        self.read = read
    }

    /// The option's name, without dashes.
    public var name: String { option.name }

    fileprivate func value(in arguments: Arguments) throws(UsageError) -> Value { try read(arguments) }
}

extension Arguments {
    /// The typed value of `option`: what was given, else its default.
    public func get<Value>(_ option: Opt<Value>) throws(UsageError) -> Value { try option.value(in: self) }
}

extension Opt where Value == String {
    /// An option that must be given (shown bare in the usage line).
    public static func required(_ name: String, _ valueName: String, help: String) -> Opt {
        Opt(.value(name, valueName, help: help, required: true)) { a throws(UsageError) in try a.require(name) }
    }

    /// A text option with a default.
    public static func text(_ name: String, _ valueName: String, help: String, default value: String) -> Opt {
        Opt(.value(name, valueName, help: help, default: value)) { a in a.string(name) ?? value }
    }
}

extension Opt where Value == String? {
    /// A text option that may be absent.
    public static func text(_ name: String, _ valueName: String, help: String, group: String? = nil) -> Opt {
        Opt(.value(name, valueName, help: help, group: group)) { a in a.string(name) }
    }
}

extension Opt where Value == [String] {
    /// An option that may be given several times, in the order given.
    public static func list(_ name: String, _ valueName: String, help: String) -> Opt {
        Opt(.value(name, valueName, help: help, repeatable: true)) { a in a.strings(name) }
    }
}

extension Opt where Value == Bool {
    public static func flag(_ name: String, help: String) -> Opt {
        Opt(.flag(name, help: help)) { a in a.flag(name) }
    }
}

extension Opt where Value == Double {
    /// A number in `range` with a default, shown in help as written here (`10`, `0.05`).
    public static func number(_ name: String, _ valueName: String, help: String, in range: ClosedRange<Double>,
                              default value: Double) -> Opt {
        Opt(.value(name, valueName, help: help, default: numberText(value))) { a throws(UsageError) in
            try a.double(name, in: range) ?? value
        }
    }
}

extension Opt where Value == Double? {
    /// A number in `range` that may be absent.
    public static func number(_ name: String, _ valueName: String, help: String, in range: ClosedRange<Double>) -> Opt {
        Opt(.value(name, valueName, help: help)) { a throws(UsageError) in try a.double(name, in: range) }
    }
}

extension Opt where Value == Int? {
    /// A whole number in `range` that may be absent.
    public static func integer(_ name: String, _ valueName: String, help: String, in range: ClosedRange<Int>) -> Opt {
        Opt(.value(name, valueName, help: help)) { a throws(UsageError) in try a.int(name, in: range) }
    }
}

extension Opt where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
    /// One of `Value`'s cases by its raw value, with a default; the placeholder lists the cases
    /// (`csv|json`), and a bad name is a usage error that lists them too.
    public static func choice(_ name: String, help: String, default value: Value) -> Opt {
        let cases = Value.allCases.map(\.rawValue).joined(separator: "|")
        return Opt(.value(name, cases, help: help, default: value.rawValue)) { a throws(UsageError) in
            let text = a.string(name) ?? value.rawValue
            guard let chosen = Value(rawValue: text) else {
                throw UsageError("--\(name) expects one of \(Value.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
            }
            return chosen
        }
    }
}

/// A number as help and settings show it: whole numbers without a fraction (`10`, not `10.0`).
public func numberText(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
