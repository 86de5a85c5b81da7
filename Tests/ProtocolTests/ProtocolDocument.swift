import Foundation

/// docs/protocol.md as the tests read it: its fenced examples, each with the section it stands
/// in, and the field tables of those sections.
struct ProtocolDocument {
    /// One fenced block: ```` ```<language> <kind> [argument] ````.
    struct Example: CustomStringConvertible {
        var language: String
        var kind: String
        /// What follows the kind in the info string (a dialect's topic, a binary's name).
        var argument: String?
        var body: String
        /// 1-based line of the opening fence.
        var line: Int
        /// The `###` (or `##`) heading above it.
        var section: String
        var description: String { "docs/protocol.md:\(line) (```\(language) \(kind))" }
    }

    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/protocol.md").path

    let text: String
    let lines: [String]

    init(path: String = ProtocolDocument.path) throws {
        text = try String(contentsOfFile: path, encoding: .utf8)
        lines = text.components(separatedBy: "\n")
    }

    init(text: String) {
        self.text = text
        lines = text.components(separatedBy: "\n")
    }

    /// Every fenced block; one without a kind in its info string is an example no test knows.
    var examples: [Example] {
        var out: [Example] = []
        var section = ""
        var open: Example?
        for (i, line) in lines.enumerated() {
            if open == nil, line.hasPrefix("#") { section = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("```") else {
                if open != nil { open!.body += (open!.body.isEmpty ? "" : "\n") + line }
                continue
            }
            if let done = open {
                out.append(done)
                open = nil
            } else {
                let info = line.dropFirst(3).split(separator: " ", maxSplits: 2).map(String.init)
                open = Example(language: info.first ?? "", kind: info.count > 1 ? info[1] : "",
                               argument: info.count > 2 ? info[2] : nil, body: "", line: i + 1, section: section)
            }
        }
        return out
    }

    /// The lines of a `##` section, up to the next `##` heading.
    func section(_ title: String) -> [String] {
        guard let start = lines.firstIndex(of: "## " + title) else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
        return Array(lines[(start + 1)..<end])
    }

    /// The first column of the field table under the `###` heading `title` (`| field | …`):
    /// each backticked name, a cell `` `x`, `y` `` giving several.
    func tableFields(under title: String) -> [String] {
        guard let start = lines.firstIndex(of: "### " + title) else { return [] }
        var out: [String] = []
        var inTable = false
        for line in lines[(start + 1)...] {
            if line.hasPrefix("#") { break }
            if line.hasPrefix("| field |") || line.hasPrefix("| key |") { inTable = true; continue }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let cell = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first.map(String.init) ?? ""
            out += Self.backticked(cell)
        }
        return out
    }

    /// The backticked words of a text.
    static func backticked(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}
