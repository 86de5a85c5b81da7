import Foundation

/// A parsed JSON document's key paths and their types, for comparing a document's example with
/// what the product writes: `readings[].id: string`, `nearest.distance: number`.
enum JSONShape {
    static func parse(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    static func parse(_ bytes: [UInt8]) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    /// Every key path, objects' keys joined with `.`, array elements as `[]`.
    static func paths(_ value: Any, _ prefix: String = "") -> Set<String> {
        var out: Set<String> = []
        if let object = value as? [String: Any] {
            for (key, inner) in object {
                let path = prefix.isEmpty ? key : prefix + "." + key
                out.insert(path)
                out.formUnion(paths(inner, path))
            }
        } else if let array = value as? [Any] {
            for element in array { out.formUnion(paths(element, prefix + "[]")) }
        }
        return out
    }

    /// Every key path with its type (`string`, `number`, `bool`, `null`, `object`, `array`).
    static func types(_ value: Any, _ prefix: String = "") -> Set<String> {
        var out: Set<String> = [prefix + ": " + type(value)]
        if let object = value as? [String: Any] {
            for (key, inner) in object { out.formUnion(types(inner, prefix.isEmpty ? key : prefix + "." + key)) }
        } else if let array = value as? [Any] {
            for element in array { out.formUnion(types(element, prefix + "[]")) }
        }
        return out
    }

    static func type(_ value: Any) -> String {
        switch value {
        case is NSNull: "null"
        case let n as NSNumber: String(cString: n.objCType) == "c" ? "bool" : "number"
        case is String: "string"
        case is [Any]: "array"
        case is [String: Any]: "object"
        default: "unknown"
        }
    }

    /// Two documents equal as JSON values (numbers compared as numbers: `1764409990.000` is `1764409990`).
    static func equal(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case let (x as [String: Any], y as [String: Any]):
            return x.count == y.count && x.allSatisfy { key, v in y[key].map { equal(v, $0) } ?? false }
        case let (x as [Any], y as [Any]):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (is NSNull, is NSNull):
            return true
        case let (x as String, y as String):
            return x == y
        case let (x as NSNumber, y as NSNumber):
            return type(x) == type(y) && abs(x.doubleValue - y.doubleValue) < 1e-9
        default:
            return false
        }
    }
}
