import Dispatch
import MQTT
import Wire

/// What an aggregator running as one shard of several adds (docs/protocol.md, Partitions and
/// shards): its own status, the site's status from every shard's, and on shard 0 the site's
/// occupancy summed from every shard's share. Confined to the work queue.
final class Sharding: @unchecked Sendable {
    let shard: Shard
    /// A second connection whose only job is the shard's status and its last will: the main
    /// connection's will is the site's status (`offline` when any shard dies), and MQTT gives
    /// a connection one will.
    var statusClient: MQTTClient?
    /// Each shard's status as last read (`true`: online).
    var statuses: [Int: Bool] = [:]
    /// The site status this shard last published; nil: none since it connected.
    var siteOnline: Bool?
    /// Shard 0's sum of the shards' occupancy; nil on the others.
    var occupancy: SiteOccupancy?
    /// Wall time before which the sum is not published: the shares retained on the broker are
    /// read first, so that a start does not publish a zone with one shard's share only.
    var holdUntil = Double.infinity
    /// Signalled when the status connection's broker acknowledges a publish (the `offline` of a stop).
    let acknowledged = DispatchSemaphore(value: 0)

    /// Seconds after connecting before shard 0 publishes sums: retained shares arrive right
    /// after the subscription is granted, well within this.
    static let shareReadTime = 2.0

    init(shard: Shard, zones: [String]) {
        self.shard = shard
        occupancy = shard.index == 0 ? SiteOccupancy(shards: shard.count, zones: zones) : nil
    }
}

extension AggregatorService {
    /// The shard's subscriptions and its status connection.
    func startSharding(_ sharding: Sharding, client: MQTTClient) throws {
        let topics = settings.topics
        try client.subscribe(topics.allShardStatus, qos: .atLeastOnce)
        if sharding.occupancy != nil { try client.subscribe(topics.allShardOccupancy, qos: .atLeastOnce) }
        var options = settings.mqtt
        options.clientID += "-status"
        options.cleanSession = true
        let status = topics.shardStatus(sharding.shard.index)
        options.will = Will(topic: status, payload: Array("offline".utf8))
        let statusClient = try MQTTClient(options, queue: work) { [weak sharding] event in
            switch event {
            case .connected: _ = try? sharding?.statusClient?.publish(status, Array("online".utf8), qos: .atLeastOnce, retain: true)
            case .published: sharding?.acknowledged.signal()
            default: break
            }
        }
        sharding.statusClient = statusClient
        try statusClient.start()
    }

    /// A shard's status or another shard's occupancy share; `true` when `m` was one.
    func handleShardMessage(_ m: MQTTMessage, _ sharding: Sharding) -> Bool {
        let topics = settings.topics
        if let index = topics.parseShardStatus(m.topic) {
            // Only this site's shards: anyone could otherwise grow the table one index at a time.
            if index < sharding.shard.count { sharding.statuses[index] = m.payload == Array("online".utf8) }
            publishSiteStatus(sharding)
            return true
        }
        guard let (index, zone) = topics.parseShardOccupancy(m.topic) else { return false }
        m.payload.withUnsafeBytes { payload in
            _ = sharding.occupancy?.apply(shard: index, zone: zone, payload: payload)
            // The shard's own share is also what its warm-up reads back.
            if index == sharding.shard.index { _ = core.readBack(topic: m.topic, payload: payload) }
        }
        return true
    }

    /// The site is `online` while every shard is; each shard publishes a change it sees, so
    /// the site's status follows whichever shards are left.
    func publishSiteStatus(_ sharding: Sharding) {
        let online = (0..<sharding.shard.count).allSatisfy { sharding.statuses[$0] == true }
        guard online != sharding.siteOnline else { return }
        sharding.siteOnline = online
        publish(MQTTMessage(topic: settings.topics.aggregatorStatus, payload: Array((online ? "online" : "offline").utf8),
                            qos: .atLeastOnce, retain: true))
    }

    /// The main connection is up: the site status is published afresh from the shards' statuses.
    func shardingConnected(_ sharding: Sharding) {
        sharding.siteOnline = nil
        sharding.holdUntil = now() + Sharding.shareReadTime
        publishSiteStatus(sharding)
    }

    /// Shard 0 publishes the zones whose sum changed, once the retained shares are read.
    func shardingTick(_ sharding: Sharding) {
        guard sharding.occupancy != nil, now() >= sharding.holdUntil else { return }
        for m in sharding.occupancy!.take(topics: settings.topics) { publish(m) }
    }

    /// A clean stop: the shard's status says `offline` (acknowledged, or `timeout` passed),
    /// then its connection closes. Off the work queue, where the acknowledgement arrives.
    func stopSharding(_ sharding: Sharding, timeout: Double) {
        guard let client = sharding.statusClient else { return }
        while sharding.acknowledged.wait(timeout: .now()) == .success {}
        if (try? client.publish(settings.topics.shardStatus(sharding.shard.index), Array("offline".utf8), qos: .atLeastOnce, retain: true)) != nil {
            _ = sharding.acknowledged.wait(timeout: .now() + timeout)
        }
        client.disconnect()
    }
}
