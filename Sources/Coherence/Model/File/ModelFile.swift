import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An Xcode model file as read from disk: the elements of the `contents`
/// XML that Xcode writes in a `.xcdatamodel` folder, each with its line.
///
/// `url` may name a versioned model (`.xcdatamodeld`, whose
/// `.xccurrentversion` names the current version), one version
/// (`.xcdatamodel`), or a `contents` file itself. A compiled model
/// (`.momd`, `.mom`) is refused: its format is private to Core Data.
///
/// **Complexity:** O(size of the file) to read.
struct ModelFile {
    /// One element of the XML, with the line it starts on.
    struct Element {
        let name: String
        let attributes: [String: String]
        let line: Int
        var children: [Element] = []

        /// The children named `name`.
        func children(named name: String) -> [Element] { children.filter { $0.name == name } }
    }

    /// The `contents` file read, for messages.
    let path: String
    /// The `<model>` element.
    let root: Element

    /// Reads the current version of the model at `url`.
    /// - Throws: ``ModelError/modelFile(file:line:entity:property:reason:)``.
    init(contentsOf url: URL) throws(ModelError) {
        let contents = try Self.contentsURL(of: url)
        path = contents.path
        let data: Data
        do {
            data = try Data(contentsOf: contents)
        } catch {
            throw .modelFile(file: contents.path, line: 0, entity: "", property: "", reason: "cannot be read: \(error.localizedDescription)")
        }
        let reader = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        guard parser.parse(), let root = reader.root else {
            let reason = parser.parserError.map { "is not well-formed XML: \($0.localizedDescription)" } ?? "has no XML element"
            throw .modelFile(file: contents.path, line: parser.lineNumber, entity: "", property: "", reason: reason)
        }
        guard root.name == "model" else {
            throw .modelFile(file: contents.path, line: root.line, entity: "", property: "",
                             reason: "the root element is <\(root.name)>, not the <model> of an Xcode model file")
        }
        self.root = root
    }

    /// The `contents` file of the model at `url`: the current version's
    /// for a versioned model.
    private static func contentsURL(of url: URL) throws(ModelError) -> URL {
        let fail = { (reason: String) -> ModelError in .modelFile(file: url.path, line: 0, entity: "", property: "", reason: reason) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw fail("no such file or folder")
        }
        guard isDirectory.boolValue else {
            if ["mom", "momd", "omo"].contains(url.pathExtension) { throw fail("a compiled model cannot be read; use the .xcdatamodeld folder it was compiled from") }
            return url
        }
        switch url.pathExtension {
        case "xcdatamodel":
            return url.appendingPathComponent("contents")
        case "xcdatamodeld":
            return try currentVersion(of: url).appendingPathComponent("contents")
        case "momd":
            throw fail("a compiled model cannot be read; use the .xcdatamodeld folder it was compiled from")
        default:
            throw fail("not an Xcode model: expected a .xcdatamodeld or .xcdatamodel folder, or a contents file")
        }
    }

    /// The current version of a versioned model: the one its
    /// `.xccurrentversion` names (`_XCCurrentVersionName`), or its only
    /// version.
    private static func currentVersion(of url: URL) throws(ModelError) -> URL {
        let marker = url.appendingPathComponent(".xccurrentversion")
        if let data = try? Data(contentsOf: marker) {
            guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
                  let name = plist["_XCCurrentVersionName"] as? String else {
                throw .modelFile(file: marker.path, line: 0, entity: "", property: "",
                                 reason: "does not name the current version (_XCCurrentVersionName)")
            }
            return url.appendingPathComponent(name)
        }
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0.hasSuffix(".xcdatamodel") }
        guard versions.count == 1 else {
            throw .modelFile(file: url.path, line: 0, entity: "", property: "",
                             reason: versions.isEmpty ? "holds no .xcdatamodel version"
                                : "holds \(versions.count) versions and no .xccurrentversion naming the current one")
        }
        return url.appendingPathComponent(versions[0])
    }
}

/// Builds the element tree while `XMLParser` reads.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var root: ModelFile.Element?
    private var open: [ModelFile.Element] = []

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        open.append(ModelFile.Element(name: name, attributes: attributes, line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard let element = open.popLast() else { return }
        if open.isEmpty { root = element } else { open[open.count - 1].children.append(element) }
    }
}
