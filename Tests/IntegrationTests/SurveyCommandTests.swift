import Foundation
import Testing

/// `calibrate --survey` → CAL.yaml → `locate --calibration` and `evaluate`, as real processes:
/// on a simulated survey (known exponent and offsets) and on the philotuxo hall's real survey,
/// converted by tools/philotuxo-convert.py.
@Suite(.serialized) struct SurveyCommandTests {
    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try runUnmasked(p)
        // Read both pipes as the process writes (a full pipe would stall it).
        nonisolated(unsafe) var errors = Data()
        let reader = Thread { errors = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return (p.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    static func whereabouts(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try run(executable("whereabouts"), arguments)
    }

    static func temporary(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `evaluate --format json`'s lines by locator.
    static func scores(_ output: String) throws -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for line in output.split(separator: "\n") {
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            out[try #require(o["locator"] as? String)] = o
        }
        return out
    }

    @Test(.timeLimit(.minutes(3)))
    func aSimulatedSurveyCalibratesLocateAndEvaluate() throws {
        let dir = try Self.temporary("survey")
        defer { try? FileManager.default.removeItem(at: dir) }
        // The calibration site without node beacons; the scenario SimulationTests' survey uses.
        let siteText = try String(contentsOfFile: packageRoot.appendingPathComponent("tools/calibration/site.yaml").path, encoding: .utf8)
            .replacingOccurrences(of: #", beacon: "[^"]*""#, with: "", options: .regularExpression)
        let site = dir.appendingPathComponent("site.yaml").path
        try siteText.write(toFile: site, atomically: true, encoding: .utf8)
        var scenario = "seed: 5\nduration: 8m\neffects: { path_loss_exponent: 3.3, shadowing_sd: 2 }\nnodes:\n"
        for (name, offset) in [("w-desk", 6), ("e-door", 5), ("c-west", -6)] { scenario += "  - { name: \(name), rx_offset: \(offset) }\n" }
        scenario += "devices:\n  - id: \"iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42\"\n    tx_power: -65\n    body_loss: 0\n    path:\n"
        for x in stride(from: 1.0, to: 12, by: 2.5) { for y in stride(from: 1.0, to: 8, by: 2.5) { scenario += "      - { at: [\(x), \(y)], dwell: 20s }\n" } }
        try scenario.write(to: dir.appendingPathComponent("scenario.yaml"), atomically: true, encoding: .utf8)
        let sim = try Self.whereabouts(["simulate", "--site", site, "--scenario", dir.appendingPathComponent("scenario.yaml").path,
                                        "--out", dir.appendingPathComponent("out").path])
        try #require(sim.status == 0, "\(sim.errors)")
        var csv = "t,x,y,z,floor\n", rooms = "t_start,t_end,room\n"
        var span: (start: Double, end: Double, room: String)?
        for line in try String(contentsOf: dir.appendingPathComponent("out/truth.jsonl"), encoding: .utf8).split(separator: "\n") {
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if let t = o["t"] as? Double, let x = o["x"] as? Double, let y = o["y"] as? Double, let z = o["z"] as? Double {
                csv += "\(t),\(x),\(y),\(z),office\n"
                // Rooms as spans of the truth's 10 Hz samples, each ending where the next begins.
                let room = o["room"] as? String ?? ""
                if let s = span, s.room == room { span?.end = t; continue }
                if let s = span, !s.room.isEmpty { rooms += "\(s.start),\(t - 0.001),\(s.room)\n" }
                span = (t, t, room)
            }
        }
        if let s = span, !s.room.isEmpty { rooms += "\(s.start),\(s.end),\(s.room)\n" }
        let roomsFile = dir.appendingPathComponent("rooms.csv").path
        try rooms.write(toFile: roomsFile, atomically: true, encoding: .utf8)
        let truth = dir.appendingPathComponent("truth.csv").path, readings = dir.appendingPathComponent("out/readings.jsonl").path
        try csv.write(toFile: truth, atomically: true, encoding: .utf8)
        let cal = dir.appendingPathComponent("cal.yaml").path

        let fit = try Self.whereabouts(["calibrate", "--site", site, "--survey", readings, "--truth", truth, "--out", cal])
        try #require(fit.status == 0, "\(fit.errors)")
        #expect(fit.output.contains("absorption "), "\(fit.output)")
        let file = try String(contentsOfFile: cal, encoding: .utf8)
        #expect(file.contains("version: 1\n"))
        // w-desk's receiver is 6 dB loud: its rx_adj near -6 less the offsets' mean (0.5), not the site's 0.
        let wDesk = try #require(file.split(separator: "\n").first { $0.contains("\"w-desk\"") })
        let adj = try #require(Double(String(wDesk.split(separator: "rx_adj: ")[1].prefix { $0 != "," })))
        #expect(abs(adj - -6.5) < 2.5, "\(wDesk)")

        let plain = try Self.whereabouts(["locate", "--site", site, "--input", readings])
        let calibrated = try Self.whereabouts(["locate", "--site", site, "--calibration", cal, "--input", readings])
        try #require(plain.status == 0 && calibrated.status == 0, "\(plain.errors)\(calibrated.errors)")
        #expect(plain.output != calibrated.output)
        // The site key does what the flag does (the path beside the site file).
        try (siteText + "\ncalibration: cal.yaml\n").write(toFile: dir.appendingPathComponent("keyed.yaml").path, atomically: true, encoding: .utf8)
        let keyed = try Self.whereabouts(["locate", "--site", dir.appendingPathComponent("keyed.yaml").path, "--input", readings])
        #expect(keyed.status == 0 && keyed.output == calibrated.output, "\(keyed.errors)")

        let before = try Self.scores(try Self.whereabouts(["evaluate", "--site", site, "--input", readings, "--truth", truth, "--format", "json"]).output)
        let after = try Self.whereabouts(["evaluate", "--site", site, "--calibration", cal, "--input", readings, "--truth", truth,
                                          "--rooms", roomsFile, "--format", "json"])
        try #require(after.status == 0, "\(after.errors)")
        let scored = try Self.scores(after.output)
        #expect(Set(scored.keys) == ["default", "nearest", "nelder-mead"] && Set(before.keys) == Set(scored.keys))
        for (_, s) in scored {
            let (m, p90, p95) = (s["median"] as? Double ?? .nan, s["p90"] as? Double ?? .nan, s["p95"] as? Double ?? .nan)
            #expect(m > 0 && m <= p90 && p90 <= p95 && p95 < 15, "\(s)")
            #expect((s["updates"] as? Int ?? 0) > 100)
            // Four rooms: a guess is right a quarter of the time; standing 20 s at each point, far more.
            let right = s["rooms"] as? Double ?? .nan
            #expect(right > 0.5 && right <= 1, "\(s)")
        }
        #expect(before["default"]?["rooms"] == nil)
        let gain = (before["default"]?["median"] as? Double ?? 0) - (scored["default"]?["median"] as? Double ?? .infinity)
        #expect(gain > 0, "default median \(before["default"] ?? [:]) → \(scored["default"] ?? [:])")
    }

    @Test(.timeLimit(.minutes(2)))
    func badSurveyInputIsRefusedNamingTheLine() throws {
        let dir = try Self.temporary("survey-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let site = packageRoot.appendingPathComponent("tools/calibration/site.yaml").path
        let truth = dir.appendingPathComponent("truth.csv").path, readings = dir.appendingPathComponent("r.jsonl").path
        try "t,x,y\n100,1,1\n99,2,2\n".write(toFile: truth, atomically: true, encoding: .utf8)
        try "{\"v\":1,\"node\":\"w-desk\",\"seq\":0,\"t\":100,\"readings\":[{\"id\":\"mac:00:11:22:33:44:55\",\"rssi\":-60,\"t\":100,\"kind\":\"mac\"}]}\n"
            .write(toFile: readings, atomically: true, encoding: .utf8)
        let back = try Self.whereabouts(["calibrate", "--site", site, "--survey", readings, "--truth", truth, "--out", dir.appendingPathComponent("c.yaml").path])
        #expect(back.status == 1 && back.errors.contains("truth.csv:3: time 99.0 goes back"), "\(back.errors)")
        try "t,x,y\n100,1,1\n160,1,1\n".write(toFile: truth, atomically: true, encoding: .utf8)
        let thin = try Self.whereabouts(["calibrate", "--site", site, "--survey", readings, "--truth", truth, "--out", dir.appendingPathComponent("c.yaml").path])
        #expect(thin.status == 1 && thin.errors.contains("too few survey points"), "\(thin.errors)")
        let usage = try Self.whereabouts(["calibrate", "--site", site, "--survey", readings])
        #expect(usage.status == 64 && usage.errors.contains("--survey needs --truth"), "\(usage.errors)")
        let noTruth = try Self.whereabouts(["evaluate", "--site", site, "--input", readings])
        #expect(noTruth.status == 64, "\(noTruth.errors)")
        try "version: 1\nnodes:\n  - { name: attic, rx_adj: 2 }\n".write(toFile: dir.appendingPathComponent("c.yaml").path, atomically: true, encoding: .utf8)
        let foreign = try Self.whereabouts(["locate", "--site", site, "--calibration", dir.appendingPathComponent("c.yaml").path, "--input", readings])
        #expect(foreign.status == 1 && foreign.errors.contains("node attic is not in"), "\(foreign.errors)")
    }

    /// The hall's real survey (126 points, 60 s each): a calibration fitted on it alone must beat the
    /// site's defaults on straight_01, a walk it never saw (docs/operations.md has all five walks).
    @Test(.timeLimit(.minutes(5)))
    func theHallsSurveyImprovesAWalkItNeverSaw() throws {
        let dir = try Self.temporary("survey-hall")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tool = packageRoot.appendingPathComponent("tools/philotuxo-convert.py").path
        let python = URL(fileURLWithPath: "/usr/bin/python3"), fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")
        let site = dir.appendingPathComponent("hall.yaml").path
        for arguments in [["site", fixtures.appendingPathComponent("philotuxo/cnf").path, site],
                          ["survey", fixtures.appendingPathComponent("philotuxo-survey").path, dir.appendingPathComponent("survey").path],
                          ["walk", fixtures.appendingPathComponent("philotuxo/trk/straight_01_all_sensors.mbd").path, dir.appendingPathComponent("walk").path]] {
            let converted = try Self.run(python, [tool] + arguments)
            try #require(converted.status == 0, "\(converted.errors)")
        }
        let cal = dir.appendingPathComponent("cal.yaml").path
        let fit = try Self.whereabouts(["calibrate", "--site", site, "--survey", dir.appendingPathComponent("survey/READINGS.jsonl").path,
                                        "--truth", dir.appendingPathComponent("survey/TRUTH.csv").path, "--out", cal])
        try #require(fit.status == 0, "\(fit.errors)")
        let walk = ["--input", dir.appendingPathComponent("walk/READINGS.jsonl").path, "--truth", dir.appendingPathComponent("walk/TRUTH.csv").path,
                    "--locator", "default", "--format", "json"]
        let plain = try Self.scores(try Self.whereabouts(["evaluate", "--site", site] + walk).output)
        let calibrated = try Self.scores(try Self.whereabouts(["evaluate", "--site", site, "--calibration", cal] + walk).output)
        let before = try #require(plain["default"]?["median"] as? Double), after = try #require(calibrated["default"]?["median"] as? Double)
        // Measured: 2.49 m with the defaults, 1.02 m with the survey's calibration.
        #expect(after < before - 0.5, "median \(before) → \(after)")
    }

    /// The aggregator applies `--calibration` before its engine is built, and refuses one of another site.
    @Test(.timeLimit(.minutes(1)))
    func theAggregatorAppliesACalibrationOrRefusesIt() throws {
        let dir = try Self.temporary("survey-aggregator")
        defer { try? FileManager.default.removeItem(at: dir) }
        let site = packageRoot.appendingPathComponent("tools/calibration/site.yaml").path
        let foreign = dir.appendingPathComponent("foreign.yaml").path, good = dir.appendingPathComponent("good.yaml").path
        try "version: 1\nabsorption: 2.1\nnodes:\n  - { name: attic, rx_adj: 1 }\n".write(toFile: foreign, atomically: true, encoding: .utf8)
        try "version: 1\nabsorption: 3.25\nnodes:\n  - { name: w-desk, rx_adj: -6 }\n".write(toFile: good, atomically: true, encoding: .utf8)
        let arguments = ["--site", site, "--db", "none", "--http", "none", "--broker", "mqtt://127.0.0.1:1"]
        let refused = try Self.run(executable("whereabouts-aggregator"), arguments + ["--calibration", foreign])
        #expect(refused.status == 1 && refused.errors.contains("node attic is not in"), "\(refused.errors)")

        let log = dir.appendingPathComponent("log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let p = Process()
        p.executableURL = executable("whereabouts-aggregator")
        p.arguments = arguments + ["--calibration", good]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = try FileHandle(forWritingTo: log)
        try runUnmasked(p)
        defer { if p.isRunning { p.terminate() }; p.waitUntilExit() }
        var text = ""
        for _ in 0..<200 where !text.contains("running:") {
            usleep(50_000)
            text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        }
        #expect(text.contains("calibration \(good) applied: absorption 3.25"), "\(text)")
    }
}
