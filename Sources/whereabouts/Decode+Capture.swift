import Foundation
import Options
import YAML
import BLE

extension PacketPrinter {
    /// Decodes the capture at `path`; the exit code, with the reason on standard error.
    mutating func capture(at path: String) -> Int32 {
        let bytes: [UInt8]
        do {
            bytes = try Self.readCapture(path)
        } catch let error as YAMLError {
            printError("whereabouts decode: cannot read \(path): \(error)")
            return ExitCode.failure
        } catch {
            printError("whereabouts decode: \(path) \(error)")
            return ExitCode.failure
        }
        guard capture(bytes) else {
            finish()
            printError("whereabouts decode: \(path) is damaged; the records before the fault were decoded")
            return ExitCode.failure
        }
        finish()
        return ExitCode.success
    }

    /// The header is read first, so a path naming no capture (/etc/passwd) is refused before
    /// it is read whole. That opens the path twice: a pipe or device is refused outright, as
    /// the first open would eat the header of what it carries (/dev/zero would never end).
    private static func readCapture(_ path: String) throws -> [UInt8] {
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        guard type == nil || type == .typeRegular else { throw NotACaptureFile() }
        do { _ = try BtsnoopReader(try YAML.readHead(path, count: Btsnoop.headerSize)) }
        catch let error as YAMLError { throw error }
        catch { throw NotACapture(reason: "\(error)") }
        return try YAML.readFile(path)
    }
}

private struct NotACaptureFile: Error, CustomStringConvertible {
    var description: String { "is not a regular file: --btsnoop reads a capture file (save a pipe's to a file first)" }
}

private struct NotACapture: Error, CustomStringConvertible {
    let reason: String
    var description: String { "is not a btsnoop capture: \(reason)" }
}
