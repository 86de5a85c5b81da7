import Dispatch
import Foundation
import MQTT
import Testing

// Found by the production audit: with `allow_anonymous false` the aggregator logged the
// broker's refusal at every attempt (4 times in 12 s), although each new reason is to be
// logged once; reasons read `The connection was lost.; retrying`; and two instances with one
// client id knocked each other off the broker for good while the log only said the
// connection was lost. Real brokers, real clients: what each client reports.

/// A client of `broker` with `id`, retrying every second, its events kept.
private func client(_ broker: Broker, id: String, events: Shared<[MQTTEvent]>) throws -> MQTTClient {
    let options = MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: id, keepalive: 5, reconnectDelay: 1...1)
    return try MQTTClient(options, queue: DispatchQueue(label: id)) { event in
        if case .message = event { return }
        events.update { $0.append(event) }
    }
}

private func lines(_ text: String, containing needle: String) -> Int {
    text.split(separator: "\n").filter { $0.contains(needle) }.count
}

@Test(.timeLimit(.minutes(1)))
func aRefusedLoginIsReportedOnceNotAtEveryAttempt() async throws {
    let broker = try Broker(settings: ["allow_anonymous false"])
    let events = Shared<[MQTTEvent]>([])
    let anonymous = try client(broker, id: "anonymous", events: events)
    try anonymous.start()
    defer { anonymous.disconnect() }
    // Four attempts refused, as the broker saw them.
    #expect(await poll(timeout: 20) { lines(broker.log, containing: "not authorised") >= 4 }, "\(broker.log)")
    try await Task.sleep(for: .milliseconds(200))
    let refusals = events.current.filter { if case .refused = $0 { true } else { false } }
    #expect(refusals.count == 1, "\(events.current)")
    let failures = events.current.filter { if case .disconnected = $0 { true } else { false } }
    #expect(failures.isEmpty, "a refused attempt is reported as the refusal only: \(failures)")
}

@Test(.timeLimit(.minutes(1)))
func twoClientsWithOneIdAreToldSoOnceEach() async throws {
    let broker = try Broker()
    let (first, second) = (Shared<[MQTTEvent]>([]), Shared<[MQTTEvent]>([]))
    let a = try client(broker, id: "twin", events: first), b = try client(broker, id: "twin", events: second)
    try a.start()
    #expect(await poll(timeout: 10) { a.connection == .connected })
    try b.start()
    defer { a.disconnect(); b.disconnect() }
    let hint = { (events: Shared<[MQTTEvent]>) in
        events.current.filter { if case .disconnected(_, let reason) = $0 { reason.contains("'twin'") } else { false } }.count
    }
    #expect(await poll(timeout: 40) { hint(first) >= 1 && hint(second) >= 1 }, "\(first.current)\n\(second.current)")
    // Many more take-overs on the broker; the clients gave the hint once each.
    let takeovers = lines(broker.log, containing: "already connected")
    #expect(await poll(timeout: 20) { lines(broker.log, containing: "already connected") >= takeovers + 4 }, "\(broker.log)")
    for events in [first, second] {
        #expect(hint(events) == 1, "\(events.current)")
        let reasons = events.current.compactMap { if case .disconnected(let code, let reason) = $0, code != 0 { reason } else { nil } }
        // Every lost connection is reported (its owner must know it is not connected), the hint once.
        #expect(reasons.contains("The connection was lost"), "\(reasons)")
        #expect(reasons.allSatisfy { !$0.hasSuffix(".") }, "\(reasons)")
        #expect(events.current.filter { $0 == .connected }.count >= 3)
    }
}
