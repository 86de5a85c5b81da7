import Wire

/// A node's `status` and `telemetry` topics: the node-up metrics and node health.
extension AggregatorCore {
    func status(node: String, payload: UnsafeRawBufferPointer, arrival: Double, into effects: inout [Effect]) {
        let text = String(decoding: payload, as: UTF8.self)
        guard text == "online" || text == "offline" else { return reject(.malformed) }
        if text == "online" { nodesOnline.insert(node) } else { nodesOnline.remove(node) }
        metrics.nodesOnline.set(Double(nodesOnline.count))
        metrics.nodeUp(node).set(text == "online" ? 1 : 0)
        effects.append(.nodeHealth(node: node, t: arrival, telemetry: nil, online: text == "online"))
    }

    func telemetry(node: String, payload: UnsafeRawBufferPointer, arrival: Double, into effects: inout [Effect]) {
        var t = NodeTelemetry()
        var scanner = JSONScanner(payload)
        do throws(JSONError) {
            try scanner.object { (s: inout JSONScanner, key) throws(JSONError) in
                if keyEquals(key, "adverts") { t.adverts = try s.integer() }
                else if keyEquals(key, "published") { t.published = try s.integer() }
                else if keyEquals(key, "dropped") { t.dropped = try s.integer() }
                else if keyEquals(key, "buffered") { t.buffered = try s.integer() }
                else { try s.skipValue() }
            }
        } catch {
            return reject(.malformed)
        }
        metrics.observe(node: node, telemetry: t)
        effects.append(.nodeHealth(node: node, t: arrival, telemetry: t, online: nodesOnline.contains(node)))
    }
}
