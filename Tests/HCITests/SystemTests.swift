import Testing
@testable import HCI
#if canImport(Glibc)
import Glibc
#endif

/// What runs without a Bluetooth kernel: errors, the poller and its wakeup, and a scanner's
/// answer on a kernel that has no Bluetooth at all (this machine's).
@Suite struct SystemTests {
    @Test func errorsCarryErrnoText() {
        let gone = HCIError.system("bind hci0", ENODEV)
        #expect(gone.description == "bind hci0: No such device (errno 19)")
        #expect(!gone.isPermanent)
        #expect(HCIError.system("open monitor socket", EPERM).isPermanent)
        #expect(!HCIError(.adapterDown, "hci0").isPermanent)
        #expect(HCIError(.commandFailed, "hci0: LE Set Scan Enable", status: 0x0C).description ==
                "hci0: LE Set Scan Enable: controller status 0x0c")
    }

    @Test func wakeupEndsAPollerWait() throws {
        let wakeup = try Wakeup()
        var poller = Poller([wakeup.readEnd])
        #expect(try !poller.wait(milliseconds: 10))
        wakeup.signal()
        #expect(try poller.wait(milliseconds: 1000))
        #expect(poller.ready(0))
    }

    static let kernelLacksBluetooth: Bool = {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), 1)
        if fd >= 0 { close(fd) }
        return fd < 0
    }()

    @Test(.enabled(if: kernelLacksBluetooth)) func scannerGivesUpWhenTheKernelHasNoBluetooth() throws {
        let scanner = try AdapterScanner(adapter: "hci0")
        let error = #expect(throws: HCIError.self) { try scanner.run { _, _ in } }
        #expect(error?.isPermanent == true)
        #expect(error?.errno == EAFNOSUPPORT)
        guard case .failed = scanner.state else { Issue.record("state \(scanner.state)"); return }
    }
}
