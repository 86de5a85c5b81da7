/// One adapter opened for scanning: the conversation with its controller, from the checks
/// to the scan being enabled, and back.
final class ScanSession {
    let index: UInt16
    let socket: HCISocket
    /// Whether the controller scans with the extended commands (Bluetooth 5).
    private(set) var extended = false
    private let savedFilter: EventFilter
    private let buffer: UnsafeMutableRawBufferPointer
    /// Commands get this long for their Command Complete / Status.
    private static let answerTimeout: Int32 = 2000

    /// Opens adapter `index`, checks it is up and does LE, and starts scanning.
    /// `buffer` is the reader's packet buffer, borrowed while commands wait for answers.
    init(index: UInt16, parameters: ScanParameters, buffer: UnsafeMutableRawBufferPointer) throws(HCIError) {
        self.index = index
        self.buffer = buffer
        socket = try HCISocket.raw(index: index)
        guard try adapterIsUp(index: index) else { throw HCIError(.adapterDown, "hci\(index)") }
        savedFilter = try socket.filter()
        try socket.setFilter(.scanning)
        do throws(HCIError) { try start(parameters) } catch {
            try? socket.setFilter(savedFilter)
            throw error
        }
    }

    private func start(_ parameters: ScanParameters) throws(HCIError) {
        let features = try LocalFeatures(returned: run(.readLocalSupportedFeatures).returned)
        guard features.leSupported else { throw HCIError(.unsupported, "hci\(index)") }
        let commands = try SupportedCommands(returned: run(.readLocalSupportedCommands).returned)
        extended = commands.extendedScanning
        // A scan left on (by a crashed run or another tool) makes Set Scan Parameters fail
        // with Command Disallowed; turning it off first is harmless when it is already off.
        _ = try execute(enableCommand(false))
        try run(extended ? .leSetExtendedScanParameters(parameters) : .leSetScanParameters(parameters))
        try run(enableCommand(true))
    }

    /// Disables the scan and puts back the filter found on the socket.
    func close() -> ScanTeardown {
        var result = ScanTeardown()
        if let answer = try? execute(enableCommand(false)) {
            result.scanDisabled = answer.status == 0 || answer.status == ControllerStatus.commandDisallowed
        }
        if (try? socket.setFilter(savedFilter)) != nil { result.filterRestored = (try? socket.filter()) == savedFilter }
        return result
    }

    private func enableCommand(_ on: Bool) -> HCICommand {
        extended ? .leSetExtendedScanEnable(on) : .leSetScanEnable(on)
    }

    /// Sends `command` and requires status 0.
    @discardableResult
    private func run(_ command: HCICommand) throws(HCIError) -> CommandResponse {
        let answer = try execute(command)
        guard answer.status == 0 else { throw HCIError(.commandFailed, "hci\(index): \(command.name)", status: answer.status) }
        return answer
    }

    /// Sends `command` and waits for its answer, skipping whatever else arrives meanwhile
    /// (advertising reports while a scan is being turned off).
    private func execute(_ command: HCICommand) throws(HCIError) -> CommandResponse {
        try socket.send(command)
        var poller = Poller([socket.fd])
        let deadline = unixNow() + Double(Self.answerTimeout) / 1000
        while true {
            let left = Int32((deadline - unixNow()) * 1000)
            guard left > 0, try poller.wait(milliseconds: left) else {
                throw HCIError(.timeout, "hci\(index): \(command.name)")
            }
            let n = try socket.receive(into: buffer)
            if let answer = try CommandResponse.parse(h4: UnsafeRawBufferPointer(rebasing: buffer[..<n]), for: command.opcode) {
                return answer
            }
        }
    }
}
