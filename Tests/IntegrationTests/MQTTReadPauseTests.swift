import Dispatch
import Foundation
import MQTT
import Synchronization
import Testing

/// A consumer that falls behind makes the client stop reading: the broker holds what follows
/// in its queue for the client, and every message arrives once the consumer catches up,
/// none shed.
@Test(.timeLimit(.minutes(1)))
func aFullQueuePausesReadingAndTheBrokerHoldsTheRest() async throws {
    let broker = try Broker()
    let queue = DispatchQueue(label: "slow consumer")
    let received = Mutex<[String]>([])
    let connected = Mutex(false)
    var options = MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "pause-\(getpid())")
    options.pauseReadingAtMessages = 10
    options.maxPendingMessages = 100
    let client = try MQTTClient(options, queue: queue) { event in
        switch event {
        case .message(let m): received.withLock { $0.append(m.topic) }
        case .connected: connected.withLock { $0 = true }
        default: break
        }
    }
    try client.subscribe("load/#", qos: .atLeastOnce)
    try client.start()
    #expect(await poll(timeout: 10) { connected.withLock { $0 } })

    let publisher = try Collector(broker: broker, filters: ["load/#"])
    try await publisher.ready()
    // 500 messages of 4 kB (2 MB: more than the sockets' buffers hold) while the consumer is stuck.
    queue.suspend()
    let body = [UInt8](repeating: 7, count: 4_000)
    for i in 0..<500 { try publisher.client.publish("load/\(i)", body, qos: .atLeastOnce) }
    #expect(await publisher.wait(timeout: 20) { $0.filter { $0.topic.hasPrefix("load/") }.count == 500 })
    #expect(await poll(timeout: 10) { client.readPauses.count >= 1 })
    try await Task.sleep(for: .milliseconds(300))
    #expect(client.shedMessages == 0)
    queue.resume()
    #expect(await poll(timeout: 20) { received.withLock { $0.count } == 500 }, "\(received.withLock { $0.count }) received")
    // In order, each once.
    #expect(received.withLock { $0 } == (0..<500).map { "load/\($0)" })
    #expect(client.shedMessages == 0)
    #expect(client.readPauses.count >= 1 && client.readPauses.seconds > 0)
    client.disconnect()
}
