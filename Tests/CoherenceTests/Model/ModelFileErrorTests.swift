@testable import Coherence
import Foundation
import Testing

/// A class that declares its properties in Swift: a model file's entity
/// cannot also take them from the file.
final class DeclaringPamphlet: ManagedObject {
    @Attribute var title = ""
    override class var entityName: String { "Pamphlet" }
}

/// Derived counts a model file's class adds in Swift: by key path, which
/// Coherence cannot resolve for `@Managed` properties; by name; and by name
/// with a format predicate that does not parse.
final class KeyPathCountingPamphlet: ManagedObject {
    @Managed var pages: Set<ManagedObject>
    @Derived(count: \KeyPathCountingPamphlet.pages) var pageCount: Int
    override class var entityName: String { "Pamphlet" }
}

final class CountingPamphlet: ManagedObject {
    @Derived(count: "pages", where: "number > 2") var pageCount: Int
    override class var entityName: String { "Pamphlet" }
}

final class BadFormatPamphlet: ManagedObject {
    @Derived(count: "pages", where: "number >") var pageCount: Int
    override class var entityName: String { "Pamphlet" }
}

/// Everything in a model file Coherence cannot honour is a
/// `ModelError.modelFile` naming the file's line, the entity and the
/// property: nothing is silently dropped.
@Suite("Xcode model file errors")
struct ModelFileErrorTests {
    /// One broken model: the `<entity>` elements of its `contents`, and
    /// what the error must name.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let entities: String
        let line: Int
        let entity: String
        let property: String
        let reason: String
        /// The class the model lists for Pamphlet, if any.
        var listed: String?
        var testDescription: String { name }
    }

    // Line 1 is the XML declaration, line 2 `<model>`: the first entity
    // starts on line 3.
    static let cases: [Case] = [
        Case(name: "unknown attribute type", entities: """
            <entity name="Pamphlet">
                <attribute name="shape" optional="YES" attributeType="Composite"/>
            </entity>
            """, line: 4, entity: "Pamphlet", property: "shape", reason: "attribute type \"Composite\" is not supported"),
        Case(name: "validation range", entities: """
            <entity name="Pamphlet">
                <attribute name="pages" optional="YES" attributeType="Integer 16" minValueString="1"/>
            </entity>
            """, line: 4, entity: "Pamphlet", property: "pages", reason: "minValueString=\"1\" is not supported"),
        Case(name: "invalid default", entities: """
            <entity name="Pamphlet">
                <attribute name="pages" attributeType="Integer 16" defaultValueString="many"/>
            </entity>
            """, line: 4, entity: "Pamphlet", property: "pages", reason: "the default value \"many\" is not a valid Integer 16"),
        Case(name: "derived attribute", entities: """
            <entity name="Pamphlet">
                <attribute name="printed" optional="YES" attributeType="Date" derived="YES" derivationExpression="now()"/>
            </entity>
            """, line: 4, entity: "Pamphlet", property: "printed", reason: "the derivation expression \"now()\" is not supported"),
        Case(name: "ordered many-to-many relationship", entities: """
            <entity name="Pamphlet">
                <relationship name="pages" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="pamphlets" inverseEntity="Page"/>
            </entity>
            <entity name="Page">
                <relationship name="pamphlets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Pamphlet" inverseName="pages" inverseEntity="Pamphlet"/>
            </entity>
            """, line: 4, entity: "Pamphlet", property: "pages", reason: "Coherence does not keep ordered many-to-many relationships"),
        Case(name: "relationship without inverse", entities: """
            <entity name="Pamphlet">
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Pamphlet"/>
            </entity>
            """, line: 4, entity: "Pamphlet", property: "author", reason: "has no inverse"),
        Case(name: "missing destination", entities: """
            <entity name="Pamphlet">
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Writer" inverseName="pamphlets"/>
            </entity>
            """, line: 4, entity: "Pamphlet", property: "author", reason: "the destination entity Writer is not in the model"),
        Case(name: "to-one with a count", entities: """
            <entity name="Pamphlet">
                <relationship name="next" optional="YES" maxCount="2" deletionRule="Nullify" destinationEntity="Pamphlet" inverseName="next"/>
            </entity>
            """, line: 4, entity: "Pamphlet", property: "next", reason: "a to-one relationship has maxCount 1, not 2"),
        Case(name: "fetched property", entities: """
            <entity name="Pamphlet">
                <attribute name="title" optional="YES" attributeType="String"/>
                <fetchedProperty name="similar" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Pamphlet" predicateString="title == $FETCH_SOURCE.title"/>
                </fetchedProperty>
            </entity>
            """, line: 5, entity: "Pamphlet", property: "similar", reason: "fetched properties are not supported"),
        Case(name: "fetch request template", entities: """
            <entity name="Pamphlet"/>
            <fetchRequest name="AllPamphlets" entity="Pamphlet"/>
            """, line: 4, entity: "", property: "", reason: "<fetchRequest> is not supported"),
        Case(name: "unknown parent", entities: """
            <entity name="Pamphlet" parentEntity="Publication"/>
            """, line: 3, entity: "Pamphlet", property: "", reason: "the parent entity Publication is not in the model"),
        Case(name: "duplicate entity", entities: """
            <entity name="Pamphlet"/>
            <entity name="Pamphlet"/>
            """, line: 4, entity: "Pamphlet", property: "", reason: "two entities named Pamphlet"),
        Case(name: "class declaring properties", entities: """
            <entity name="Pamphlet" representedClassName="DeclaringPamphlet">
                <attribute name="title" optional="YES" attributeType="String"/>
            </entity>
            """, line: 3, entity: "Pamphlet", property: "title", reason: "takes its properties from the file", listed: "DeclaringPamphlet"),
        Case(name: "listed class of no entity", entities: """
            <entity name="Pamphlet"/>
            """, line: 2, entity: "", property: "", reason: "the class DeclaringPamphlet in classes: is the class of no entity", listed: "DeclaringPamphlet"),
        Case(name: "duplicate property", entities: """
            <entity name="Pamphlet">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="title" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Pamphlet" inverseName="title"/>
            </entity>
            """, line: 5, entity: "Pamphlet", property: "title", reason: "two properties named title"),
        // Found by the model's checks after the file was read: still at
        // the line of the property.
        Case(name: "inverse that is no relationship", entities: """
            <entity name="Pamphlet">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="sequel" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Pamphlet" inverseName="title"/>
            </entity>
            """, line: 5, entity: "Pamphlet", property: "sequel", reason: "Pamphlet.title is not a relationship"),
        Case(name: "derived count of the wrong type", entities: """
            <entity name="Pamphlet">
                <attribute name="pageCount" optional="YES" attributeType="String" derived="YES" derivationExpression="pages.@count"/>
                <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="pamphlet"/>
            </entity>
            <entity name="Page">
                <relationship name="pamphlet" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Pamphlet" inverseName="pages"/>
            </entity>
            """, line: 4, entity: "Pamphlet", property: "pageCount", reason: "a count is an integer attribute, not string"),
        // @Derived attributes a class adds to the file's entity.
        Case(name: "derived count by key path", entities: """
            <entity name="Pamphlet" representedClassName="KeyPathCountingPamphlet">
                <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="pamphlet"/>
            </entity>
            \(page)
            """, line: 3, entity: "Pamphlet", property: "pageCount", reason: "name the relationship and attribute", listed: "KeyPathCountingPamphlet"),
        Case(name: "derived count on a sub-entity's class", entities: """
            <entity name="Publication"/>
            <entity name="Pamphlet" parentEntity="Publication" representedClassName="CountingPamphlet">
                <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="pamphlet"/>
            </entity>
            \(page)
            """, line: 4, entity: "Pamphlet", property: "pageCount", reason: "declare it on the class of the topmost parent entity", listed: "CountingPamphlet"),
        Case(name: "derived count named like a file's attribute", entities: """
            <entity name="Pamphlet" representedClassName="CountingPamphlet">
                <attribute name="pageCount" optional="YES" attributeType="Integer 64"/>
                <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="pamphlet"/>
            </entity>
            \(page)
            """, line: 3, entity: "Pamphlet", property: "pageCount", reason: "the file has a property of that name", listed: "CountingPamphlet"),
        Case(name: "derived count of no relationship", entities: """
            <entity name="Pamphlet" representedClassName="CountingPamphlet"/>
            """, line: 3, entity: "Pamphlet", property: "pageCount", reason: "it does not follow a relationship of Pamphlet", listed: "CountingPamphlet"),
        Case(name: "derived count filtering on an unknown key", entities: """
            <entity name="Pamphlet" representedClassName="CountingPamphlet">
                <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="pamphlet"/>
            </entity>
            \(page)
            """, line: 3, entity: "Pamphlet", property: "pageCount", reason: "its predicate:", listed: "CountingPamphlet"),
        Case(name: "derived count with a malformed predicate", entities: """
            <entity name="Pamphlet" representedClassName="BadFormatPamphlet">
                <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="pamphlet"/>
            </entity>
            \(page)
            """, line: 3, entity: "Pamphlet", property: "pageCount", reason: "its predicate \"number >\" is invalid", listed: "BadFormatPamphlet"),
    ]

    /// A page of a pamphlet, without a `number`.
    static let page = """
        <entity name="Page">
            <relationship name="pamphlet" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Pamphlet" inverseName="pages"/>
        </entity>
        """

    /// The classes a case may list, by name.
    static let listable: [String: ManagedObject.Type] = [
        "DeclaringPamphlet": DeclaringPamphlet.self, "KeyPathCountingPamphlet": KeyPathCountingPamphlet.self,
        "CountingPamphlet": CountingPamphlet.self, "BadFormatPamphlet": BadFormatPamphlet.self,
    ]

    /// Writes `entities` as the `contents` of a new `.xcdatamodel` folder.
    static func modelFolder(_ entities: String) throws -> URL {
        let folder = TestFiles.newURL("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
            \(entities)
            </model>
            """
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return folder
    }

    @Test(arguments: cases) func namesTheLineEntityAndProperty(_ broken: Case) throws {
        let folder = try Self.modelFolder(broken.entities)
        let error = #expect(throws: ModelError.self) {
            try ManagedObjectModel(contentsOf: folder, classes: broken.listed.flatMap { Self.listable[$0] }.map { [$0] } ?? [])
        }
        guard case .modelFile(let file, let line, let entity, let property, let reason) = error else {
            Issue.record("expected a model file error, got \(String(describing: error))")
            return
        }
        #expect(file == folder.appendingPathComponent("contents").path)
        #expect((line, entity, property) == (broken.line, broken.entity, broken.property))
        #expect(reason.contains(broken.reason), "\(reason)")
    }

    /// Malformed XML names the line the parser stopped on.
    @Test func malformedXMLNamesItsLine() throws {
        let folder = try Self.modelFolder("<entity name=\"Pamphlet\">\n<attribute name=\"title\" attributeType=\"String\">\n</entity>")
        let error = #expect(throws: ModelError.self) { try ManagedObjectModel(contentsOf: folder) }
        guard case .modelFile(_, let line, _, _, let reason) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(line >= 5 && reason.contains("not well-formed XML"), "\(line): \(reason)")
    }

    /// A compiled model, a missing file, and a versioned model that does
    /// not say which version is current.
    @Test func refusesWhatIsNoModelFile() throws {
        let compiled = TestFiles.newURL("Library.momd")
        try FileManager.default.createDirectory(at: compiled, withIntermediateDirectories: true)
        let versions = TestFiles.newURL("Two.xcdatamodeld")
        for name in ["A.xcdatamodel", "B.xcdatamodel"] {
            try FileManager.default.createDirectory(at: versions.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let expectations: [(URL, String)] = [
            (compiled, "a compiled model cannot be read"),
            (TestFiles.newURL("Missing.xcdatamodeld"), "no such file or folder"),
            (versions, "holds 2 versions and no .xccurrentversion"),
        ]
        for (url, expected) in expectations {
            let error = #expect(throws: ModelError.self) { try ManagedObjectModel(contentsOf: url) }
            #expect(error.map { "\($0)" }?.contains(expected) == true, "\(String(describing: error))")
        }
    }
}
