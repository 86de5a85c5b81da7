// libFuzzer target "dialect": an ESPresense or Theengs/OpenMQTTGateway message (docs/protocol.md#mqtt-topics-and-payloads,
// other edge dialects) and the node topics the aggregator parses. Compiled into module Wire
// with the Wire sources. The input is `topic NUL payload`; without a NUL, all of it is the
// payload and the topic is the dialect's usual one.
//
// Oracles: an accepted reading is inside the limits, and a topic level escaped by `Topics`
// comes back unchanged and never holds '/', '+' or '#'.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDialect(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let split = input.firstIndex(of: 0)
    let topic = split.map { String(decoding: input[..<$0], as: UTF8.self) }
    let payload = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(input)[(split.map { $0 + 1 } ?? 0)...])
    let topics = [topic ?? "espresense/devices/iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42/kitchen",
                  topic ?? "home/hall/BTtoMQTT/C23A6B010203"]
    for (dialect, topic) in zip(Dialect.allCases, topics) {
        guard let (node, reading) = try? dialect.reading(topic: topic, payload: payload, arrival: 1_764_410_000) else { continue }
        oracle(!reading.id.isEmpty && reading.id.utf8.count <= Reading.maxIdBytes, "id accepted: \(reading.id)")
        oracle(Batch.rssiRange.contains(Int64(reading.rssi)), "rssi accepted: \(reading.rssi)")
        checkEscaping(node)
        checkEscaping(reading.id)
    }
    if let topic {
        _ = Topics().parseNodeTopic(topic)
        checkEscaping(topic)
    }
    return 0
}

private func checkEscaping(_ level: String) {
    let escaped = Topics.escape(level)
    oracle(!escaped.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") },
                 "escaped level still splits or matches: \(escaped)")
    oracle(Topics.unescape(escaped) == level, "escape does not round-trip: \(level)")
    let topics = Topics()
    oracle(topics.parseNodeTopic(topics.nodeReadings(level))?.node == (level.isEmpty ? nil : level),
                 "node topic does not name its node: \(level)")
}
