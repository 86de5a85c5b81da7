internal import CCrypto

/// A libcrypto call that failed: which one, and the library's own reason when it gave one.
public struct CryptoError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// `call` failed: takes (and clears) the oldest error libcrypto queued on this thread.
    static func failed(_ call: String) -> CryptoError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0, let reason = ERR_reason_error_string(code) else { return CryptoError("\(call) failed") }
        return CryptoError("\(call) failed: \(String(cString: reason))")
    }
}
