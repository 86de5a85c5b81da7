import Dispatch
import Foundation
import Positioning
import PostgresStorage
import SiteModel
import Storage

/// Self-calibration's learned state kept in the store (`self_calibration` table: SQLite's, or
/// PostgreSQL's with a set per shard): read at start or takeover (the engine starts where the
/// last run left), saved every `calibrationSaveInterval` off the work queue, and once more at a
/// clean stop. Shown at `/api/calibration` and in metrics.
extension AggregatorService {
    /// Seconds between two saves: a crash loses at most this much learning, which is minutes' worth.
    static let calibrationSaveInterval = 60.0

    /// Opens the calibration table of the store at `location` and restores what it holds.
    func openCalibration(_ location: StoreLocation) throws {
        let store: any CalibrationStoring
        switch location {
        case .file(let path): store = try CalibrationStore(path: path)
        case .postgres(let url): store = try PostgresCalibrationStore(url: url, shard: settings.shard.description)
        }
        let records = try store.load()
        calibration.store = store
        calibration.lastSave = now()
        guard !records.isEmpty else { return }
        let snapshot = Self.snapshot(of: records, mode: settings.site.positioning.selfCalibration)
        work.sync { core.engine.restoreCalibration(snapshot) }
        log("self-calibration (\(snapshot.mode.rawValue)): restored \(snapshot.nodes.count) node offset(s), "
            + "\(snapshot.floors.count) floor exponent(s), \(snapshot.devices.count) device power(s) from \(store.location)")
    }

    /// On the work queue: when a save is due (or `force`), the engine's state is taken here and
    /// written on the calibration queue (`wait`: before returning, as a stop does).
    func saveCalibrationIfDue(wall: Double, force: Bool = false, wait: Bool = false) {
        guard let store = calibration.store, settings.site.positioning.selfCalibration == .learn,
              force || wall - calibration.lastSave >= Self.calibrationSaveInterval else { return }
        calibration.lastSave = wall
        let records = Self.records(of: core.engine.calibrationSnapshot())
        let saves = metrics.calibrationSaves, log = self.log
        let save: @Sendable () -> Void = {
            do {
                try store.save(records, at: wall)
                saves.labels("stored").add()
            } catch {
                saves.labels("failed").add()
                log("self-calibration not saved: \(error)")
            }
        }
        if wait { calibration.queue.sync(execute: save) } else { calibration.queue.async(execute: save) }
    }

    /// The learned offsets, exponents and updates, read from the engine when scraped.
    func registerCalibrationMetrics() {
        let registry = metrics.registry
        registry.collect("whereabouts_self_calibration_offset_db",
                         "Each node's receiver offset learned by self-calibration, dB added to its RSSI (they average 0).",
                         labels: ["node"]) { [weak self] in
            guard let self else { return [] }
            return self.snapshot { $0.engine.calibrationSnapshot() }.nodes.map { ([$0.name], $0.offset) }
        }
        registry.collect("whereabouts_self_calibration_exponent", "Each floor's path-loss exponent learned by self-calibration.",
                         labels: ["floor"]) { [weak self] in
            guard let self else { return [] }
            return self.snapshot { $0.engine.calibrationSnapshot() }.floors.map { ([$0.floor], $0.exponent) }
        }
        registry.collect("whereabouts_self_calibration_updates_total",
                         "Lessons self-calibration took: a node's reading moving its offset, a solve moving its floor's exponent.",
                         type: .counter) { [weak self] in
            guard let self else { return [] }
            return [([], Double(self.snapshot { $0.engine.calibration.updates }))]
        }
    }

    static func records(of snapshot: SelfCalibrationSnapshot) -> [CalibrationRecord] {
        snapshot.nodes.map { CalibrationRecord(kind: .node, name: $0.name, value: $0.offset, evidence: $0.evidence) }
            + snapshot.floors.map { CalibrationRecord(kind: .floor, name: $0.floor, value: $0.exponent, evidence: $0.evidence) }
            + snapshot.devices.map { CalibrationRecord(kind: .device, name: $0.id, value: $0.offset) }
            + [CalibrationRecord(kind: .counter, name: "updates", value: Double(snapshot.updates))]
    }

    static func snapshot(of records: [CalibrationRecord], mode: SelfCalibrationMode) -> SelfCalibrationSnapshot {
        var snapshot = SelfCalibrationSnapshot(mode: mode)
        for r in records {
            switch r.kind {
            case .node: snapshot.nodes.append(.init(name: r.name, offset: r.value, evidence: r.evidence))
            case .floor: snapshot.floors.append(.init(floor: r.name, exponent: r.value, evidence: r.evidence))
            case .device: snapshot.devices.append(.init(id: r.name, offset: r.value))
            case .counter: if r.name == "updates", r.value.isFinite { snapshot.updates = Int(max(r.value, 0)) }
            }
        }
        return snapshot
    }
}

/// The aggregator's calibration store and its saving queue (`AggregatorService+Calibration`).
final class CalibrationKeeping: @unchecked Sendable {
    var store: (any CalibrationStoring)?
    var lastSave = 0.0
    /// Saves run here, never on the work queue: a slow disk must not stall positioning.
    let queue = DispatchQueue(label: "whereabouts.aggregator.calibration")
}
