internal import CMosquitto
#if canImport(Glibc)
import Glibc
#endif

// libmosquitto calls these on the client's network thread with its callback mutex held
// (`onLog` also on any thread calling into libmosquitto). Each recovers the client from the
// opaque pointer, copies what it needs and hands it to the client's queue at once: anything
// slower would stall the network loop and keepalives.

/// Runs `body` on the client's core behind `obj` without reference counting: the network
/// thread, the only one in the loop, holds the core for as long as it runs.
@inline(__always)
private func withClient(_ obj: UnsafeMutableRawPointer?, _ body: (MQTTClientCore) -> Void) {
    guard let obj else { return }
    Unmanaged<MQTTClientCore>.fromOpaque(obj)._withUnsafeGuaranteedRef(body)
}

func onConnect(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?, _ rc: Int32) {
    withClient(obj) { $0.didConnect(rc) }
}

func onDisconnect(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?, _ rc: Int32) {
    // First: for MOSQ_ERR_ERRNO this is the failed read's or write's errno, as early as it can
    // be seen (libmosquitto has only closed the socket since).
    let error = errno
    withClient(obj) { $0.didDisconnect(rc, errno: error) }
}

func onLog(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?, _ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    withClient(obj) { $0.logged(level: level, String(cString: line)) }
}

func onPublish(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?, _ mid: Int32) {
    withClient(obj) { $0.acknowledged(mid) }
}

func onMessage(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?,
               _ message: UnsafePointer<mosquitto_message>?) {
    guard let m = message?.pointee, let topic = m.topic else { return }
    let payload = UnsafeRawBufferPointer(start: m.payloadlen > 0 ? m.payload : nil, count: Int(max(m.payloadlen, 0)))
    withClient(obj) { $0.deliver(topic: String(cString: topic), payload: payload, qos: QoS(rawValue: m.qos) ?? .atMostOnce, retain: m.retain) }
}
