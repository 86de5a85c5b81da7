import Dispatch
import Foundation
import MQTT
import Synchronization
import Testing

/// A consumer that falls behind sheds and counts messages beyond its bound instead of
/// holding every one of them in memory.
@Test(.timeLimit(.minutes(1)))
func messagesBeyondThePendingBoundAreShedAndCounted() async throws {
    let broker = try Broker()
    let queue = DispatchQueue(label: "slow consumer")
    let received = Mutex(0)
    let connected = Mutex(false)
    var options = MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "backpressure-\(getpid())")
    options.maxPendingMessages = 10
    let client = try MQTTClient(options, queue: queue) { event in
        switch event {
        case .message: received.withLock { $0 += 1 }
        case .connected: connected.withLock { $0 = true }
        default: break
        }
    }
    try client.subscribe("load/#", qos: .atLeastOnce)
    try client.start()
    #expect(await poll(timeout: 10) { connected.withLock { $0 } })

    let publisher = try Collector(broker: broker, filters: ["load/#"])
    try await publisher.ready()
    // The consumer's queue is stuck while 50 messages arrive.
    queue.suspend()
    for i in 0..<50 { try publisher.client.publish("load/\(i)", [UInt8(i)], qos: .atLeastOnce) }
    #expect(await publisher.wait { $0.filter { $0.topic.hasPrefix("load/") }.count == 50 })
    #expect(await poll(timeout: 10) { client.shedMessages == 40 })
    queue.resume()
    #expect(await poll(timeout: 10) { received.withLock { $0 } == 10 })
    #expect(client.shedMessages == 40)
    client.disconnect()
}
