import Testing
import Options

private func settings(_ values: [String: String]) throws(UsageError) -> BrokerSettings {
    try BrokerSettings { values[$0] }
}

@Test func brokerSettingsReadEveryKeyAndDefaultTheBroker() throws {
    let s = try settings(["username": "kitchen", "password_file": "/etc/pw"])
    #expect(s == BrokerSettings(broker: "mqtt://127.0.0.1:1883", username: "kitchen", passwordFile: "/etc/pw",
                                passwordEnvironment: nil, caFile: nil, certFile: nil, keyFile: nil))
    let tls = try settings(["broker": "mqtts://b:8883", "tls.ca": "ca", "tls.cert": "c", "tls.key": "k"])
    #expect(tls == BrokerSettings(broker: "mqtts://b:8883", username: nil, passwordFile: nil,
                                  passwordEnvironment: nil, caFile: "ca", certFile: "c", keyFile: "k"))
    #expect(BrokerSettings.options.map(\.name) == ["broker", "username", "password-file", "password-env", "tls-ca", "tls-cert", "tls-key"])
}

@Test(arguments: [
    (["username": "u", "password_file": "f", "password_env": "E"], "password_file and password_env: give one, not both"),
    (["password_env": "E"], "username: required when a password file or variable is given"),
    (["tls.cert": "c"], "tls.cert and tls.key: give both or neither"),
    // Review of edgecli: TLS files on a plaintext broker were ignored (the password in clear),
    // and a client certificate without tls.ca was silently dropped.
    (["tls.ca": "ca"], "tls.ca, tls.cert, tls.key: only for an mqtts:// broker, not mqtt://127.0.0.1:1883"),
    (["broker": "mqtt://b", "tls.cert": "c", "tls.key": "k"], "tls.ca, tls.cert, tls.key: only for an mqtts:// broker, not mqtt://b"),
    (["broker": "mqtts://b", "tls.cert": "c", "tls.key": "k"],
     "tls.cert and tls.key: need tls.ca too (with the system's CA store no client certificate is sent)"),
])
func brokerSettingsThatDoNotGoTogether(values: [String: String], message: String) {
    #expect(throws: UsageError(message)) { try settings(values) }
}

/// Review of edgecli: a missing CA file was named nowhere ("Invalid function arguments
/// provided." at connect) and --check-config said OK.
@Test func unreadableFilesAreNamedWithKeyPathAndReason() throws {
    let s = try settings(["broker": "mqtts://b", "username": "u", "password_file": "/nonexistent/pw",
                          "tls.ca": "/nonexistent/ca.crt", "tls.cert": "/proc/self/status", "tls.key": "/proc/self/status"])
    #expect(s.unreadableFiles() == ["password_file: cannot read /nonexistent/pw: No such file or directory",
                                    "tls.ca: cannot read /nonexistent/ca.crt: No such file or directory"])
}
