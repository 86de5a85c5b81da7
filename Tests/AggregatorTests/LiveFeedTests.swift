@testable import HTTP
import MQTT
import Testing
@testable import Aggregator

/// The live feed sends device states and zone events (nothing else) to each page, drops and
/// counts a page whose queue fills instead of holding the work queue, and refuses pages
/// beyond its limit.
@Test func theLiveFeedForwardsStatesAndEventsAndDropsAPageThatDoesNotRead() throws {
    let feed = LiveFeed()
    // No page: nothing is formatted.
    feed.published(MQTTMessage(topic: "whereabouts/devices/a/state", payload: Array("{}".utf8)))
    let stream = try #require(feed.subscribe(snapshot: Array("[]".utf8)))
    #expect(feed.clientCount == 1)
    let state = Array(#"{"id":"a","room":"hall"}"#.utf8)
    feed.published(MQTTMessage(topic: "whereabouts/devices/a/state", payload: state))
    feed.published(MQTTMessage(topic: "whereabouts/devices/a/room", payload: Array("hall".utf8)))
    feed.published(MQTTMessage(topic: "whereabouts/zones/hall/events", payload: Array(#"{"type":"enter"}"#.utf8)))
    let text = String(decoding: drain(stream), as: UTF8.self)
    #expect(text == "retry: 1000\n\nevent: snapshot\ndata: []\n\nevent: state\ndata: {\"id\":\"a\",\"room\":\"hall\"}\n\n"
                + "event: zone\ndata: {\"type\":\"enter\"}\n\n")
    // Never read again: the queue fills and the page is dropped, once.
    for _ in 0..<(LiveFeed.queueBytes / state.count + 10) {
        feed.published(MQTTMessage(topic: "whereabouts/devices/a/state", payload: state))
    }
    #expect(feed.drops == 1 && feed.clientCount == 0 && !stream.isOpen)
}

@Test func theLiveFeedRefusesPagesBeyondItsLimit() {
    let feed = LiveFeed()
    let streams = (0..<LiveFeed.maxClients).compactMap { _ in feed.subscribe(snapshot: []) }
    #expect(streams.count == LiveFeed.maxClients)
    #expect(feed.subscribe(snapshot: []) == nil && feed.refused == 1)
    feed.close()
    #expect(feed.clientCount == 0 && streams.allSatisfy { !$0.isOpen })
}

/// What a stream has queued, read as its connection thread would.
private func drain(_ stream: EventStream) -> [UInt8] {
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    let n = buffer.withUnsafeMutableBytes { stream.read(into: $0.baseAddress!, max: $0.count) }
    if n > 0 { out += buffer[0..<n] }
    return out
}
