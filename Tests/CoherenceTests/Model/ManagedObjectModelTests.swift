import Coherence
import Foundation
import Testing

@Suite("Model")
struct ManagedObjectModelTests {
    @Test func discoversAttributesAndRelationshipsInDeclarationOrder() throws {
        let model = try TestStack.model()
        let server = try #require(model.entitiesByName["Server"])
        #expect(server.managedObjectClass == Server.self)
        #expect(server.attributes.map(\.name) == ["name", "unreadCount"])
        #expect(server.relationships.map(\.name) == ["feedItems"])
        let feedItems = try #require(server.relationship(named: "feedItems"))
        #expect(feedItems.isToMany)
        #expect(feedItems.deleteRule == .cascade)
        #expect(feedItems.destinationEntityName == "FeedItem")
        #expect(feedItems.inverseName == "server")
        // The inverse is declared on Server only; FeedItem.server learns it.
        let item = try #require(model.entity(for: FeedItem.self))
        let server2 = try #require(item.relationship(named: "server"))
        #expect(!server2.isToMany)
        #expect(server2.inverseName == "feedItems")
        #expect(server2.deleteRule == .nullify)
    }

    @Test func mapsSwiftTypesToAttributeTypes() throws {
        let sample = try #require(try TestStack.model().entity(for: Sample.self))
        let types = Dictionary(uniqueKeysWithValues: sample.attributes.map { ($0.name, $0.attributeType) })
        #expect(types == [
            "flag": .boolean, "int": .integer64, "int16": .integer16, "int32": .integer32, "int64": .integer64,
            "double": .double, "float": .float, "string": .string, "date": .date, "data": .binaryData,
            "uuid": .uuid, "url": .uri, "decimal": .decimal, "optionalString": .string, "optionalInt": .integer64,
            "priority": .string, "level": .integer16, "address": .codable, "code": .string,
        ])
        #expect(sample.attribute(named: "transientNote") == nil, "plain stored properties are not modeled")
        #expect(sample.attribute(named: "optionalString")?.isOptional == true)
        #expect(sample.attribute(named: "string")?.isOptional == false)
        #expect(sample.attribute(named: "optionalString")?.defaultValue == .null)
        #expect(sample.attribute(named: "optionalInt")?.defaultValue == .integer(7))
        #expect(sample.attribute(named: "priority")?.defaultValue == .string("low"))
        #expect(sample.attribute(named: "code")?.defaultValue == nil, "declared without an initial value")
    }

    @Test func rejectsDuplicateEntityNames() {
        #expect(throws: ModelError.duplicateEntity(name: "Server")) {
            try ManagedObjectModel(entities: [Server.self, FeedItem.self, Server.self])
        }
    }

    @Test func rejectsUnsupportedAttributeTypes() {
        #expect(throws: ModelError.unsupportedAttributeType(entity: "WithOpaque", property: "opaque", type: "CoherenceTests.Opaque")) {
            try ManagedObjectModel(entities: [WithOpaque.self])
        }
    }

    @Test func rejectsMissingInverse() {
        #expect(throws: ModelError.missingInverse(entity: "Lonely", property: "friend")) {
            try ManagedObjectModel(entities: [Lonely.self, Friend.self])
        }
    }

    @Test func rejectsInverseThatIsNotARelationshipBack() {
        #expect(throws: ModelError.mismatchedInverse(
            entity: "Pointer", property: "target", reason: "Target.others leads to Other, not Pointer")) {
            try ManagedObjectModel(entities: [Pointer.self, Target.self, Other.self])
        }
    }

    @Test func rejectsDisagreeingInverses() throws {
        let error = try #require(throws: ModelError.self) {
            try ManagedObjectModel(entities: [Left.self, Right.self])
        }
        guard case .mismatchedInverse(let entity, _, _) = error else {
            Issue.record("expected a mismatched inverse, got \(error)")
            return
        }
        #expect(["Left", "Right"].contains(entity))
    }

    @Test func rejectsDestinationOutsideTheModel() {
        #expect(throws: ModelError.destinationNotInModel(entity: "Server", property: "feedItems", destination: "FeedItem")) {
            try ManagedObjectModel(entities: [Server.self])
        }
    }

    @Test func errorMessagesNameEntityAndProperty() {
        let message = ModelError.missingInverse(entity: "Lonely", property: "friend").description
        #expect(message.contains("Lonely.friend"))
    }
}

// Models that must be rejected.

/// Neither native, raw-representable nor Codable.
struct Opaque {
    var value = 1
}

final class WithOpaque: ManagedObject {
    @Attribute var opaque = Opaque()
}

final class Lonely: ManagedObject {
    @Relationship var friend: Friend?
}

final class Friend: ManagedObject {
    @Relationship var lonely: Set<Lonely>
}

final class Pointer: ManagedObject {
    @Relationship(inverse: \Target.others) var target: Target?
}

final class Target: ManagedObject {
    @Relationship(inverse: \Other.target) var others: Set<Other>
    @Relationship var pointers: Set<Pointer>
}

final class Other: ManagedObject {
    @Relationship var target: Target?
}

final class Left: ManagedObject {
    @Relationship(inverse: \Right.first) var right: Right?
    @Relationship var other: Right?
}

final class Right: ManagedObject {
    @Relationship(inverse: \Left.other) var first: Left?
}
