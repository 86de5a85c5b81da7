import MQTT
import Wire

/// Stale Home Assistant discovery: configs an earlier run published (retained) for entities
/// this one no longer makes — a device taken out of the site file or unnamed, a room removed,
/// an entity kind retired — are cleared with an empty retained payload, which makes Home
/// Assistant remove the entity. Read back from the broker at start, with the occupancy.
extension AggregatorService {
    /// Every discovery config on the broker (read until the warm-up ends).
    static let retainedDiscovery = "homeassistant/+/+/config"

    func readBackDiscovery(_ m: MQTTMessage) {
        guard let topic = Self.staleDiscovery(topic: m.topic, payload: m.payload, prefix: settings.topics.prefix, current: discoveryTopics),
              clearedDiscovery.insert(topic).inserted
        else { return }
        log("clearing Home Assistant discovery \(topic): this site no longer has that entity")
        publish(MQTTMessage(topic: topic, payload: [], qos: .atLeastOnce, retain: true))
    }

    /// `topic` when it is a config of ours that `current` does not have: its object id starts
    /// with `whereabouts_` and it reads a topic under `prefix` (so another aggregator's, on its
    /// own prefix, is left alone). Empty payloads (configs cleared already) are not.
    static func staleDiscovery(topic: String, payload: [UInt8], prefix: String, current: Set<String>) -> String? {
        guard !payload.isEmpty, !current.contains(topic) else { return nil }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 4, levels[0] == "homeassistant", levels[3] == "config", levels[2].hasPrefix("whereabouts_") else { return nil }
        let text = String(decoding: payload, as: UTF8.self)
        return text.contains("\"\(prefix)/") ? topic : nil
    }
}
