// The broker, ports and processes every integration test uses live in Tests/ProcessSupport,
// shared with ProtocolTests; re-exported here so each test file needs no import of its own.
@_exported import ProcessSupport
