internal import CMosquitto

// libmosquitto calls these on its own thread with its callback mutex held. Each recovers
// the client from the opaque pointer, copies what it needs and hands it to the client's
// queue at once: anything slower would stall the network loop and keepalives.

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

func onPublish(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?, _ mid: Int32) {
    client(obj)?.deliver(.published(mid: mid))
}

func onMessage(_ mosq: OpaquePointer?, _ obj: UnsafeMutableRawPointer?,
               _ message: UnsafePointer<mosquitto_message>?) {
    guard let client = client(obj), let m = message?.pointee, let topic = m.topic else { return }
    let payload = UnsafeRawBufferPointer(start: m.payloadlen > 0 ? m.payload : nil, count: Int(max(m.payloadlen, 0)))
    client.deliver(topic: String(cString: topic), payload: payload, qos: QoS(rawValue: m.qos) ?? .atMostOnce, retain: m.retain)
}
