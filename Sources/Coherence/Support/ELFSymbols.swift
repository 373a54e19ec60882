import Foundation

/// Named functions in an ELF file's symbol tables (`.symtab`, which keeps
/// local symbols when the file is not stripped, and `.dynsym`): a reader just
/// large enough for ``ObservationScope`` to find a function the Swift runtime
/// does not export. 64-bit little-endian files only.
///
/// Every offset and size is checked against the file, so a truncated,
/// stripped or foreign file yields no functions rather than a crash.
///
/// **Complexity:** O(size of the file) per ``functions(named:)`` call.
struct ELFSymbols {
    /// One function: its address relative to the file's load address, and
    /// its machine code as the file holds it (to compare with the code the
    /// process runs).
    struct Function: Equatable {
        let value: UInt64
        let code: Data
    }

    private let file: Data

    /// Reads the file at `path` (copied, not mapped: a file truncated while
    /// mapped would fault); `nil` if it cannot be read or is not a 64-bit
    /// little-endian ELF file.
    init?(path: String) {
        guard let file = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return nil }
        self.init(file)
    }

    init?(_ file: Data) {
        guard file.count >= 64, file.prefix(6) == Data([0x7F, 0x45, 0x4C, 0x46, 2, 1]) else { return nil }
        self.file = file
    }

    private struct Section {
        let type: UInt32, address: UInt64, offset: UInt64, size: UInt64, link: UInt32, entrySize: UInt64
    }

    /// The functions among `names` that a symbol table defines, with their
    /// code when a section of the file holds it. A name defined twice with
    /// different values is left out, as are names not defined.
    func functions(named names: Set<String>) -> [String: Function] {
        let bytes = [UInt8](file)
        let count = UInt64(bytes.count)
        func read<T: FixedWidthInteger>(_ offset: UInt64, as: T.Type) -> T? {
            guard offset <= count, count - offset >= UInt64(MemoryLayout<T>.size) else { return nil }
            var value: T = 0
            for byte in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(bytes[Int(offset) + byte]) }
            return value
        }
        guard let sectionsOffset = read(0x28, as: UInt64.self), read(0x3A, as: UInt16.self) == 64,
              let sectionCount = read(0x3C, as: UInt16.self), sectionsOffset <= count,
              UInt64(sectionCount) <= (count - sectionsOffset) / 64 else { return [:] }
        let sections: [Section] = (0..<UInt64(sectionCount)).compactMap { index in
            let header = sectionsOffset + index * 64
            guard let type = read(header + 4, as: UInt32.self), let address = read(header + 16, as: UInt64.self),
                  let offset = read(header + 24, as: UInt64.self), let size = read(header + 32, as: UInt64.self),
                  let link = read(header + 40, as: UInt32.self), let entrySize = read(header + 56, as: UInt64.self)
            else { return nil }
            return Section(type: type, address: address, offset: offset, size: size, link: link, entrySize: entrySize)
        }
        guard sections.count == Int(sectionCount) else { return [:] }
        /// The file's bytes for `size` bytes of code at address `value`.
        func code(at value: UInt64, size: UInt64) -> Data {
            let programBits: UInt32 = 1
            guard let section = sections.first(where: {
                $0.type == programBits && $0.address <= value && value - $0.address < $0.size
            }), size <= section.size - (value - section.address) else { return Data() }
            let (start, overflow) = section.offset.addingReportingOverflow(value - section.address)
            guard !overflow, start <= count, size <= count - start else { return Data() }
            return Data(bytes[Int(start)..<Int(start + size)])
        }
        var found: [String: Function] = [:], conflicting = Set<String>()
        let symbolTable: UInt32 = 2, dynamicSymbolTable: UInt32 = 11, function: UInt8 = 2
        for table in sections where table.type == symbolTable || table.type == dynamicSymbolTable {
            guard table.entrySize == 24, Int(table.link) < sections.count, table.offset <= count,
                  table.size <= count - table.offset else { continue }
            let strings = sections[Int(table.link)]
            guard strings.offset <= count, strings.size <= count - strings.offset else { continue }
            for symbol in stride(from: table.offset, to: table.offset + table.size / 24 * 24, by: 24) {
                guard let nameOffset = read(symbol, as: UInt32.self), let info = read(symbol + 4, as: UInt8.self),
                      let sectionIndex = read(symbol + 6, as: UInt16.self), let value = read(symbol + 8, as: UInt64.self),
                      let size = read(symbol + 16, as: UInt64.self),
                      info & 0xF == function, sectionIndex != 0, value != 0, UInt64(nameOffset) < strings.size else { continue }
                let start = Int(strings.offset) + Int(nameOffset), end = Int(strings.offset + strings.size)
                guard let terminator = bytes[start..<end].firstIndex(of: 0) else { continue }
                let name = String(decoding: bytes[start..<terminator], as: UTF8.self)
                guard names.contains(name) else { continue }
                let candidate = Function(value: value, code: code(at: value, size: size))
                if let earlier = found[name], earlier.value != value { conflicting.insert(name) }
                if found[name] == nil || found[name]!.code.isEmpty { found[name] = candidate }
            }
        }
        for name in conflicting { found[name] = nil }
        return found
    }
}
