import SiteModel

extension Engine {
    /// The site compiled for `locator`: its geometry, and the global search's tables when it searches.
    static func compile(_ site: Site, locator: any Locator, model: PathLoss, options: EngineOptions) -> SiteGeometry {
        var geometry = SiteGeometry(site)
        geometry.deviceHeight = options.deviceHeight
        // A site without a floor plan has no floor to search (`solveWithoutPlan`).
        if locator.searchesGrid && site.hasFloorPlan {
            geometry.buildGrids(slope: model.slope, height: options.deviceHeight ?? EngineOptions.usualDeviceHeight)
        }
        return geometry
    }

    /// Why `recalibrate` refused a site.
    public struct RecalibrationMismatch: Error, CustomStringConvertible {
        public var description: String
    }

    /// Takes a new calibration of the same site (`SiteCalibration.applied(to:)` on the site the
    /// engine runs): the absorption, nodes' `rx_adj`, devices' `tx_ref`, the radio map and the room
    /// fingerprints change, and self-calibration starts again from them;
    /// tracks, links, rooms and everything else the engine holds stay. Readings already taken keep
    /// the `rx_adj` they were taken with until the smoothing window drops them (seconds). A site
    /// whose nodes or floors differ from the running one's is refused: that is a restart.
    public func recalibrate(_ calibrated: Site) throws(RecalibrationMismatch) {
        guard calibrated.nodes.map(\.name) == site.nodes.map(\.name) else {
            throw RecalibrationMismatch(description: "its nodes differ from the running site's (restart to change the site)")
        }
        guard calibrated.floors == site.floors, calibrated.nodes.map(\.point) == site.nodes.map(\.point) else {
            throw RecalibrationMismatch(description: "its floors or node positions differ from the running site's (restart to change the site)")
        }
        site = calibrated
        model = PathLoss(exponent: calibrated.positioning.absorption)
        geometry = Self.compile(calibrated, locator: locator, model: model, options: options)
        roomEvidenceSources = Self.roomEvidenceSources(site: calibrated, geometry: geometry, liveness: nodeLiveness)
        // What self-calibration learned corrected the old file's values: on the new ones it would
        // correct twice, so it starts again from the new file (same mode).
        selfCalibration = SelfCalibration(mode: selfCalibration.mode, nodes: calibrated.nodes.count, floors: calibrated.floors.count,
                                          absorption: calibrated.positioning.absorption, options: selfCalibration.options)
        selfCalibration.fixesTeachExponent = !calibrated.positioning.absorptionStated
        for d in devices.indices {
            devices[d].configuredTxRef = calibrated.devices.first { $0.id == devices[d].id }?.txRef
        }
    }
}
