import Wire
import SiteModel

/// Folds libyaml's events into a `ConfigNode` tree with an explicit stack, so a deeply nested
/// or hostile file cannot overflow the call stack; resolves anchors, aliases and `<<` merges.
struct TreeBuilder {
    /// Deeper than any site file needs; it bounds the recursion of whoever walks the tree.
    static let maxDepth = 128
    /// Aliases share storage but a walker visits every copy: this bounds an "alias bomb".
    static let maxNodes = 1_000_000

    private enum Frame {
        case sequence([ConfigNode], anchor: String?, mark: Mark, firstNode: Int)
        case mapping([ConfigNode.Entry], key: (String, Int)?, anchor: String?, mark: Mark, firstNode: Int)
    }

    private var stack: [Frame] = []
    private var anchors: [String: (node: ConfigNode, size: Int)] = [:]
    private var nodeCount = 0

    /// Reads the first document; a stream with no document is an empty mapping.
    static func build(_ parser: EventParser) throws(YAMLError) -> ConfigNode {
        var builder = TreeBuilder()
        var root: ConfigNode?
        while true {
            let event = try parser.next()
            switch event {
            case .streamStart, .documentEnd: continue
            case .streamEnd: return root ?? ConfigNode(.mapping([]), line: 1, column: 1)
            case .documentStart(let mark):
                if root != nil {
                    throw YAMLError(line: mark.line, column: mark.column, message: "a site file holds one YAML document; a second starts here")
                }
                root = try builder.document(parser)
            default: continue
            }
        }
    }

    private mutating func document(_ parser: EventParser) throws(YAMLError) -> ConfigNode {
        while true {
            if let node = try step(parser.next()), stack.isEmpty { return node }
        }
    }

    /// Handles one event; returns a node when the event completes one.
    private mutating func step(_ event: Event) throws(YAMLError) -> ConfigNode? {
        var done: ConfigNode
        switch event {
        case .scalar(let text, let plain, let anchor, let mark):
            done = ConfigNode(.scalar(text, plain: plain), line: mark.line, column: mark.column)
            try count(1, at: mark)
            if let anchor { anchors[anchor] = (done, 1) }
        case .alias(let name, let mark):
            guard let target = anchors[name] else {
                throw YAMLError(line: mark.line, column: mark.column, message: "unknown alias *\(name)")
            }
            try count(target.size, at: mark)
            done = target.node
        case .sequenceStart(let anchor, let mark):
            try push(.sequence([], anchor: anchor, mark: mark, firstNode: nodeCount), at: mark)
            return nil
        case .mappingStart(let anchor, let mark):
            try push(.mapping([], key: nil, anchor: anchor, mark: mark, firstNode: nodeCount), at: mark)
            return nil
        case .sequenceEnd, .mappingEnd:
            guard let frame = stack.popLast() else { return nil }
            done = try close(frame)
        default:
            return nil
        }
        return try attach(done)
    }

    private mutating func push(_ frame: Frame, at mark: Mark) throws(YAMLError) {
        guard stack.count < Self.maxDepth else {
            throw YAMLError(line: mark.line, column: mark.column, message: "nested deeper than \(Self.maxDepth) levels")
        }
        try count(1, at: mark)
        stack.append(frame)
    }

    private mutating func count(_ nodes: Int, at mark: Mark) throws(YAMLError) {
        nodeCount += nodes
        guard nodeCount <= Self.maxNodes else {
            throw YAMLError(line: mark.line, column: mark.column, message: "more than \(Self.maxNodes) values once aliases are expanded")
        }
    }

    private mutating func close(_ frame: Frame) throws(YAMLError) -> ConfigNode {
        let node: ConfigNode, anchor: String?, firstNode: Int
        switch frame {
        case .sequence(let items, let a, let mark, let first):
            node = ConfigNode(.sequence(items), line: mark.line, column: mark.column)
            anchor = a; firstNode = first
        case .mapping(let entries, _, let a, let mark, let first):
            node = ConfigNode(.mapping(try Self.merged(entries)), line: mark.line, column: mark.column)
            anchor = a; firstNode = first
        }
        if let anchor { anchors[anchor] = (node, nodeCount - firstNode) }
        return node
    }

    /// Places a finished node in its parent; returns it when it is the document's root.
    private mutating func attach(_ node: ConfigNode) throws(YAMLError) -> ConfigNode? {
        guard let top = stack.popLast() else { return node }
        switch top {
        case .sequence(var items, let anchor, let mark, let first):
            items.append(node)
            stack.append(.sequence(items, anchor: anchor, mark: mark, firstNode: first))
        case .mapping(var entries, let key, let anchor, let mark, let first):
            if let key {
                entries.append(ConfigNode.Entry(key: key.0, keyLine: key.1, value: node))
                stack.append(.mapping(entries, key: nil, anchor: anchor, mark: mark, firstNode: first))
            } else {
                guard let text = node.text else {
                    throw YAMLError(line: node.line, column: node.column, message: "a mapping key must be a single value, not \(node.kindName)")
                }
                stack.append(.mapping(entries, key: (text, node.line), anchor: anchor, mark: mark, firstNode: first))
            }
        }
        return nil
    }

    /// YAML 1.1 merge keys (`<<: *defaults`): merged keys never override keys written here.
    private static func merged(_ entries: [ConfigNode.Entry]) throws(YAMLError) -> [ConfigNode.Entry] {
        guard entries.contains(where: { $0.key == "<<" }) else { return entries }
        var result = entries.filter { $0.key != "<<" }
        for merge in entries where merge.key == "<<" {
            let sources = merge.value.items ?? [merge.value]
            for source in sources {
                guard let more = source.entries else {
                    throw YAMLError(line: source.line, column: source.column, message: "<< merges a mapping or a list of mappings, not \(source.kindName)")
                }
                for entry in more where !result.contains(where: { $0.key == entry.key }) { result.append(entry) }
            }
        }
        return result
    }
}
