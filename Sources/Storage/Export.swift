/// Output formats of a device's history.
public enum ExportFormat: String, Sendable, CaseIterable {
    case csv, json, geojson
}

/// Output formats of the tabular queries (visits, occupancy, devices), which have no geometry.
public enum TableFormat: String, Sendable, CaseIterable {
    case csv, json
}

/// Writes a device's history a point at a time, so a long track streams to its destination.
///
/// CSV and JSON carry one record per point. GeoJSON is a FeatureCollection of Point features
/// followed by one LineString per stretch on one floor; coordinates are the site's metres,
/// not longitude and latitude, which GIS tools take as a local (engineering) frame.
public struct HistoryExporter {
    public let format: ExportFormat
    private let emit: (String) -> Void
    private var count = 0
    private var runs: [(floor: String?, from: Double, to: Double, coordinates: [String])] = []
    private let device: String

    /// - Parameter emit: receives the text in order, piece by piece.
    public init(format: ExportFormat, device: String, emit: @escaping (String) -> Void) {
        self.format = format
        self.device = device
        self.emit = emit
    }

    /// Writes the header (CSV) or the opening of the array or collection.
    public mutating func begin() {
        switch format {
        case .csv: emit("device,t,time,x,y,z,floor,room,confidence\n")
        case .json: emit("[")
        case .geojson: emit("{\"type\":\"FeatureCollection\",\"features\":[")
        }
    }

    /// Writes one point, in the order given (oldest first for a track).
    public mutating func add(_ p: TrackPoint) {
        let separator = count == 0 ? "\n" : ",\n"
        count += 1
        let position = "[\(TextFormat.json(p.x)),\(TextFormat.json(p.y)),\(TextFormat.json(p.z))]"
        switch format {
        case .csv:
            emit([TextFormat.csv(p.device), TextFormat.time(p.t), ISO8601.format(p.t), TextFormat.json(p.x),
                  TextFormat.json(p.y), TextFormat.json(p.z), TextFormat.csv(p.floor), TextFormat.csv(p.room),
                  TextFormat.json(p.confidence)].joined(separator: ",") + "\n")
        case .json:
            emit(separator + "{\"device\":\(TextFormat.json(p.device)),\"t\":\(TextFormat.time(p.t)),"
                 + "\"x\":\(TextFormat.json(p.x)),\"y\":\(TextFormat.json(p.y)),\"z\":\(TextFormat.json(p.z)),"
                 + "\"floor\":\(TextFormat.json(p.floor)),\"room\":\(TextFormat.json(p.room)),"
                 + "\"confidence\":\(TextFormat.json(p.confidence))}")
        case .geojson:
            emit(separator + "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":\(position)},"
                 + "\"properties\":{\"device\":\(TextFormat.json(p.device)),\"t\":\(TextFormat.time(p.t)),"
                 + "\"time\":\"\(ISO8601.format(p.t))\",\"floor\":\(TextFormat.json(p.floor)),"
                 + "\"room\":\(TextFormat.json(p.room)),\"confidence\":\(TextFormat.json(p.confidence))}}")
            if let last = runs.last, last.floor == p.floor {
                runs[runs.count - 1].to = p.t
                runs[runs.count - 1].coordinates.append(position)
            } else {
                runs.append((p.floor, p.t, p.t, [position]))
            }
        }
    }

    /// Writes the closing (and, for GeoJSON, the LineString of each stretch on one floor).
    public mutating func end() {
        switch format {
        case .csv: break
        case .json: emit(count == 0 ? "]\n" : "\n]\n")
        case .geojson:
            // A LineString needs two positions; a lone point stays a Point feature only.
            for run in runs where run.coordinates.count >= 2 {
                emit(",\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":["
                     + run.coordinates.joined(separator: ",") + "]},\"properties\":{\"device\":\(TextFormat.json(device)),"
                     + "\"floor\":\(TextFormat.json(run.floor)),\"from\":\(TextFormat.time(run.from)),"
                     + "\"to\":\(TextFormat.time(run.to))}}")
            }
            emit(count == 0 ? "]}\n" : "\n]}\n")
        }
    }
}

/// Text of the tabular queries.
public enum TableExport {
    /// One row per visit; an open visit has empty exit and dwell (null in JSON).
    public static func visits(_ visits: [Visit], format: TableFormat) -> String {
        switch format {
        case .csv:
            return "device,zone,floor,enter,enter_time,exit,exit_time,dwell\n" + visits.map { v in
                [TextFormat.csv(v.device), TextFormat.csv(v.zone), TextFormat.csv(v.floor), TextFormat.time(v.enter),
                 ISO8601.format(v.enter), v.exit.map(TextFormat.time) ?? "", v.exit.map(ISO8601.format) ?? "",
                 v.dwell.map { TextFormat.json($0) } ?? ""].joined(separator: ",") + "\n"
            }.joined()
        case .json:
            return jsonArray(visits.map { v in
                "{\"device\":\(TextFormat.json(v.device)),\"zone\":\(TextFormat.json(v.zone)),"
                    + "\"floor\":\(TextFormat.json(v.floor)),\"enter\":\(TextFormat.time(v.enter)),"
                    + "\"exit\":\(v.exit.map(TextFormat.time) ?? "null"),\"dwell\":\(TextFormat.json(v.dwell))}"
            })
        }
    }

    /// CSV: one `zone,device` row per device present; JSON: `{t, zones: [{zone, count, devices}]}`.
    public static func occupancy(_ zones: [ZoneOccupancy], at t: Double, format: TableFormat) -> String {
        switch format {
        case .csv:
            return "zone,device\n" + zones.flatMap { zone in
                zone.devices.map { TextFormat.csv(zone.zone) + "," + TextFormat.csv($0) + "\n" }
            }.joined()
        case .json:
            let list = zones.map { zone in
                "{\"zone\":\(TextFormat.json(zone.zone)),\"count\":\(zone.devices.count),\"devices\":["
                    + zone.devices.map { TextFormat.json($0) }.joined(separator: ",") + "]}"
            }
            return "{\"t\":\(TextFormat.time(t)),\"zones\":" + jsonArray(list).dropLast() + "}\n"
        }
    }

    /// One row per device, with where it was last seen.
    public static func devices(_ devices: [DeviceSummary], format: TableFormat) -> String {
        switch format {
        case .csv:
            return "id,name,first_seen,last_seen,last_floor,last_room,track_points\n" + devices.map { d in
                [TextFormat.csv(d.id), TextFormat.csv(d.name), TextFormat.time(d.firstSeen), TextFormat.time(d.lastSeen),
                 TextFormat.csv(d.lastFloor), TextFormat.csv(d.lastRoom), String(d.trackPoints)].joined(separator: ",") + "\n"
            }.joined()
        case .json:
            return jsonArray(devices.map { d in
                "{\"id\":\(TextFormat.json(d.id)),\"name\":\(TextFormat.json(d.name)),"
                    + "\"first_seen\":\(TextFormat.time(d.firstSeen)),\"last_seen\":\(TextFormat.time(d.lastSeen)),"
                    + "\"last_floor\":\(TextFormat.json(d.lastFloor)),\"last_room\":\(TextFormat.json(d.lastRoom)),"
                    + "\"track_points\":\(d.trackPoints)}"
            })
        }
    }

    /// `[` items one per line `]` and a final newline.
    private static func jsonArray(_ items: [String]) -> String {
        items.isEmpty ? "[]\n" : "[\n" + items.joined(separator: ",\n") + "\n]\n"
    }
}
