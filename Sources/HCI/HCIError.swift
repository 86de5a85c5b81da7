#if canImport(Glibc)
import Glibc
#endif

/// The one error of the HCI module: what was being done, and the errno or controller status
/// behind it.
public struct HCIError: Error, Sendable, CustomStringConvertible {
    public let reason: Reason
    /// What was being done: `bind hci0`, `LE Set Scan Enable`, …
    public let operation: String
    /// The errno of a failed system call, 0 when none.
    public let errno: Int32
    /// The controller's status code of a failed command, 0 when none.
    public let status: UInt8

    public init(_ reason: Reason, _ operation: String, errno: Int32 = 0, status: UInt8 = 0) {
        self.reason = reason
        self.operation = operation
        self.errno = errno
        self.status = status
    }

    /// A failed system call, with the errno it left.
    static func system(_ operation: String, _ code: Int32 = Glibc.errno) -> HCIError {
        HCIError(.system, operation, errno: code)
    }

    public var description: String {
        switch reason {
        case .system: "\(operation): \(String(cString: strerror(errno))) (errno \(errno))"
        case .commandFailed: "\(operation): controller status 0x\(hexByte(status))"
        default: "\(operation): \(reason)"
        }
    }

    /// The adapter went away or is down: worth reopening later, unlike a permission or
    /// capability problem that waiting will not fix.
    public var isPermanent: Bool {
        switch reason {
        case .system: errno == EPERM || errno == EACCES || errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT
        case .unsupported, .badAdapterName: true
        default: false
        }
    }

    /// Why an HCI operation failed. A struct of static values rather than an enum so reasons
    /// may grow.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private let code: UInt8
        private let name: StaticString

        private init(_ code: UInt8, _ name: StaticString) {
            self.code = code
            self.name = name
        }

        /// A system call failed; `errno` says why.
        public static let system = Reason(1, "system call failed")
        /// The controller answered a command with a non-zero status.
        public static let commandFailed = Reason(2, "command failed")
        /// No Command Complete or Status arrived in time.
        public static let timeout = Reason(3, "no answer from the controller")
        /// The controller's answer was too short or otherwise not what the spec says.
        public static let malformedEvent = Reason(4, "malformed event")
        /// The controller is not up (`hciconfig hciN up`).
        public static let adapterDown = Reason(5, "adapter is down")
        /// The controller cannot do what is asked (no LE).
        public static let unsupported = Reason(6, "controller does not support Bluetooth LE")
        /// Neither `hciN` nor the address of a present adapter.
        public static let badAdapterName = Reason(7, "not an adapter name (hciN) or the address of one")
        /// The kernel said the adapter went down or away while we used it.
        public static let adapterGone = Reason(8, "adapter went down")

        public var description: String { name.description }

        public static func == (a: Reason, b: Reason) -> Bool { a.code == b.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    }
}

func hexByte(_ b: UInt8) -> String {
    let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
    return String([digits[Int(b >> 4)], digits[Int(b & 0x0F)]])
}
