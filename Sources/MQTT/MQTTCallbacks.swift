internal import CMosquitto

// libmosquitto calls these on the client's network thread with its callback mutex held
// (`onLog` also on any thread calling into libmosquitto). Each recovers the client from the
// opaque pointer, copies what it needs and hands it to the client's queue at once: anything
// slower would stall the network loop and keepalives.

@inline(__always)
private func client(_ obj: UnsafeMutableRawPointer?) -> MQTTClient? {
    guard let obj else { return nil }
    return Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue()
}

func onConnect(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?, _ rc: Int32) {
    client(obj)?.didConnect(rc)
}

func onDisconnect(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?, _ rc: Int32) {
    client(obj)?.didDisconnect(rc)
}

func onLog(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?, _ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    client(obj)?.logged(level: level, String(cString: line))
}

func onPublish(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?, _ mid: Int32) {
    client(obj)?.deliver(.published(mid: mid))
}

func onMessage(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?,
               _ message: UnsafePointer<mosquitto_message>?) {
    guard let client = client(obj), let m = message?.pointee, let topic = m.topic else { return }
    var payload: [UInt8] = []
    if let bytes = m.payload, m.payloadlen > 0 {
        payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(m.payloadlen)))
    }
    let qos = QoS(rawValue: m.qos) ?? .atMostOnce
    client.deliver(.message(MQTTMessage(topic: String(cString: topic), payload: payload, qos: qos, retain: m.retain)))
}
