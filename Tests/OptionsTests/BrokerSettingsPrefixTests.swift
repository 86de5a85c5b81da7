import Testing
import Options

@Test func thePrefixIsABrokerSettingWithItsDefault() throws {
    #expect(try BrokerSettings { _ in nil }.prefix == "whereabouts")
    #expect(try BrokerSettings { $0 == "prefix" ? "house" : nil }.prefix == "house")
    #expect(BrokerSettings.prefixSetting.option == .value("prefix", "P", help: "Topic prefix.", default: "whereabouts"))
}

@Test func settingsMadeInCodeAreCheckedByTheSameRules() {
    let plain = BrokerSettings(broker: "mqtt://b", username: nil, passwordFile: nil, passwordEnvironment: nil,
                               caFile: "ca", certFile: nil, keyFile: nil)
    #expect(throws: UsageError("tls.ca, tls.cert, tls.key: only for an mqtts:// broker, not mqtt://b")) { try plain.validate() }
}
