internal import CMosquitto

/// A failed libmosquitto call, or a bad MQTT setting.
///
/// Every libmosquitto return code is checked once, in `check`, so each failure carries the
/// operation that failed and `mosquitto_strerror`'s text.
public struct MQTTError: Error, Equatable, CustomStringConvertible {
    /// libmosquitto's `MOSQ_ERR_*` code, or 0 for a setting rejected before any call.
    public let code: Int32
    /// What was being done (`connect`, `publish`, `broker URL`).
    public let operation: String
    public let message: String

    public init(code: Int32 = 0, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }

    public var description: String { "MQTT \(operation): \(message)" }

    /// Whether the call failed only because there is no connection right now (the loop
    /// thread will reconnect by itself).
    public var isNotConnected: Bool {
        code == Int32(MOSQ_ERR_NO_CONN.rawValue) || code == Int32(MOSQ_ERR_CONN_LOST.rawValue)
    }

    /// Whether the packet is larger than the broker takes (the maximum packet size of its
    /// MQTT 5 CONNACK): the same payload will never go; a smaller one may.
    public var isTooLarge: Bool { code == Int32(MOSQ_ERR_OVERSIZE_PACKET.rawValue) }

    static func invalid(_ operation: String, _ message: String) -> MQTTError {
        MQTTError(code: 0, operation: operation, message: message)
    }
}

/// Turns a libmosquitto return code into an `MQTTError` unless it is `MOSQ_ERR_SUCCESS`.
@inline(__always)
func check(_ rc: Int32, _ operation: @autoclosure () -> String) throws(MQTTError) {
    guard rc != Int32(MOSQ_ERR_SUCCESS.rawValue) else { return }
    throw MQTTError(code: rc, operation: operation(), message: describe(rc))
}

/// libmosquitto's text for a code; `MOSQ_ERR_ERRNO` means the text is in errno.
func describe(_ rc: Int32) -> String {
    guard let text = mosquitto_strerror(rc) else { return "error \(rc)" }
    return String(cString: text)
}
