internal import CYAML

/// One libyaml event, copied out of C memory so the C event can be freed at once.
enum Event {
    case streamStart, streamEnd
    case documentStart(Mark), documentEnd
    case alias(anchor: String, Mark)
    case scalar(String, plain: Bool, anchor: String?, Mark)
    case sequenceStart(anchor: String?, Mark), sequenceEnd
    case mappingStart(anchor: String?, Mark), mappingEnd
}

/// A 1-based position in the text.
struct Mark {
    var line: Int
    var column: Int
}

/// Owns a libyaml parser and the bytes it reads; both are freed in `deinit`, on every path.
final class EventParser {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    /// libyaml keeps a pointer to its input, so the bytes live exactly as long as the parser.
    private let input: UnsafeMutableBufferPointer<UInt8>

    init(_ bytes: some Collection<UInt8>) throws(YAMLError) {
        input = .allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        parser = .allocate(capacity: 1)
        guard yaml_parser_initialize(parser) == 1 else {
            parser.deallocate()
            input.deallocate()
            throw YAMLError(line: 0, column: 0, message: "out of memory starting the YAML parser")
        }
        yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        input.deallocate()
    }

    /// The next event, or the parser's error with its position.
    func next() throws(YAMLError) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw currentError() }
        defer { yaml_event_delete(&event) }
        let mark = Mark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_STREAM_START_EVENT: return .streamStart
        case YAML_DOCUMENT_START_EVENT: return .documentStart(mark)
        case YAML_DOCUMENT_END_EVENT: return .documentEnd
        case YAML_ALIAS_EVENT: return .alias(anchor: Self.string(event.data.alias.anchor) ?? "", mark)
        case YAML_SCALAR_EVENT:
            let s = event.data.scalar
            let text = s.value.map { String(decoding: UnsafeBufferPointer(start: $0, count: s.length), as: UTF8.self) } ?? ""
            return .scalar(text, plain: s.style == YAML_PLAIN_SCALAR_STYLE, anchor: Self.string(s.anchor), mark)
        case YAML_SEQUENCE_START_EVENT: return .sequenceStart(anchor: Self.string(event.data.sequence_start.anchor), mark)
        case YAML_SEQUENCE_END_EVENT: return .sequenceEnd
        case YAML_MAPPING_START_EVENT: return .mappingStart(anchor: Self.string(event.data.mapping_start.anchor), mark)
        case YAML_MAPPING_END_EVENT: return .mappingEnd
        default: return .streamEnd
        }
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: UnsafePointer($0)) }
    }

    /// libyaml's problem and context as one message, at the problem's position.
    private func currentError() -> YAMLError {
        let p = parser.pointee
        guard p.error != YAML_MEMORY_ERROR else { return YAMLError(line: 0, column: 0, message: "out of memory parsing YAML") }
        var message = p.problem.map { String(cString: $0) } ?? "invalid YAML"
        if let context = p.context.map({ String(cString: $0) }) {
            message += " \(context) (started at line \(p.context_mark.line + 1))"
        }
        // The reader (bad UTF-8, control characters) reports only a byte offset.
        if p.error == YAML_READER_ERROR { return YAMLError(at: p.problem_offset, in: input, message: message) }
        return YAMLError(line: Int(p.problem_mark.line) + 1, column: Int(p.problem_mark.column) + 1, message: message)
    }
}

extension YAMLError {
    /// The line and column of a byte offset, counted from the text itself.
    init(at offset: Int, in bytes: UnsafeMutableBufferPointer<UInt8>, message: String) {
        var line = 1, column = 1
        for byte in bytes.prefix(min(offset, bytes.count)) {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        self.init(line: line, column: column, message: message)
    }
}
