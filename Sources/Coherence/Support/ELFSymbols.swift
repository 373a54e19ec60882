import Foundation

/// The values of named symbols in an ELF file's symbol tables (`.symtab`,
/// which keeps local symbols when the file is not stripped, and `.dynsym`):
/// a reader just large enough for ``ObservationScope`` to find a function the
/// Swift runtime does not export. 64-bit little-endian files only.
///
/// Every offset and size is checked against the file, so a truncated,
/// stripped or foreign file yields no values rather than a crash.
///
/// **Complexity:** O(symbols in the file) per ``values(of:)`` call.
struct ELFSymbols {
    private let file: Data

    /// Reads the file at `path` (mapped, not copied); `nil` if it cannot be
    /// read or is not a 64-bit little-endian ELF file.
    init?(path: String) {
        guard let file = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
              file.count >= 64, file.prefix(6) == Data([0x7F, 0x45, 0x4C, 0x46, 2, 1]) else { return nil }
        self.file = file
    }

    /// The value (address relative to the file's load address) of each of
    /// `names` that a symbol table defines; names it does not define are
    /// absent.
    func values(of names: Set<String>) -> [String: UInt64] {
        file.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var found: [String: UInt64] = [:]
            func read<T: FixedWidthInteger>(_ offset: UInt64, as: T.Type) -> T? {
                guard offset <= UInt64(bytes.count), UInt64(bytes.count) - offset >= UInt64(MemoryLayout<T>.size) else { return nil }
                return T(littleEndian: bytes.loadUnaligned(fromByteOffset: Int(offset), as: T.self))
            }
            guard let sectionsOffset = read(0x28, as: UInt64.self), read(0x3A, as: UInt16.self) == 64,
                  let sectionCount = read(0x3C, as: UInt16.self) else { return found }
            func section(_ index: UInt64) -> (type: UInt32, offset: UInt64, size: UInt64, link: UInt32, entrySize: UInt64)? {
                let header = sectionsOffset &+ index &* 64
                guard index < UInt64(sectionCount), let type = read(header + 4, as: UInt32.self),
                      let offset = read(header + 24, as: UInt64.self), let size = read(header + 32, as: UInt64.self),
                      let link = read(header + 40, as: UInt32.self), let entrySize = read(header + 56, as: UInt64.self),
                      offset <= UInt64(bytes.count), size <= UInt64(bytes.count) - offset else { return nil }
                return (type, offset, size, link, entrySize)
            }
            let symbolTable: UInt32 = 2, dynamicSymbolTable: UInt32 = 11, function: UInt8 = 2
            for index in 0..<UInt64(sectionCount) {
                guard let table = section(index), table.type == symbolTable || table.type == dynamicSymbolTable,
                      table.entrySize == 24, let strings = section(UInt64(table.link)) else { continue }
                for symbol in stride(from: table.offset, to: table.offset + table.size / 24 * 24, by: 24) {
                    guard let nameOffset = read(symbol, as: UInt32.self), let info = read(symbol + 4, as: UInt8.self),
                          let sectionIndex = read(symbol + 6, as: UInt16.self), let value = read(symbol + 8, as: UInt64.self),
                          info & 0xF == function, sectionIndex != 0, value != 0, UInt64(nameOffset) < strings.size else { continue }
                    let start = Int(strings.offset) + Int(nameOffset), end = Int(strings.offset + strings.size)
                    guard let terminator = bytes[start..<end].firstIndex(of: 0) else { continue }
                    let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<terminator]), as: UTF8.self)
                    if names.contains(name) { found[name] = value }
                }
            }
            return found
        }
    }
}
