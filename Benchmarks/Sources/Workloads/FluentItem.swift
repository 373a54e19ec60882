import FluentKit
import FluentSQLiteDriver
import Foundation

/// The item as a Fluent model, over the table Coherence writes (`Item`,
/// primary key `Z_PK`; the fetch ignores the `Z_OPT` column). Fluent's models
/// are classes with property wrappers, marked `@unchecked Sendable` as
/// Fluent's documentation does.
package final class FluentItem: Model, @unchecked Sendable {
    package static let schema = "Item"

    @ID(custom: "Z_PK", generatedBy: .database) package var id: Int64?
    @Field(key: "i0") var i0: Int64
    @Field(key: "i1") var i1: Int64
    @Field(key: "i2") var i2: Int64
    @Field(key: "i3") var i3: Int64
    @Field(key: "i4") var i4: Int64
    @Field(key: "i5") var i5: Int64
    @Field(key: "i6") var i6: Int64
    @Field(key: "i7") var i7: Int64
    @Field(key: "i8") var i8: Int64
    @Field(key: "i9") var i9: Int64

    package init() {}

    /// A new model (its key assigned by SQLite) holding `value` in every column.
    init(_ value: Int64) {
        i0 = value; i1 = value; i2 = value; i3 = value; i4 = value
        i5 = value; i6 = value; i7 = value; i8 = value; i9 = value
    }

    /// The sum of every column: reads each field once.
    var total: Int64 { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }

    /// Creates the table of a new file, as a Fluent migration would.
    static func createTable(on database: any Database) async throws {
        var schema = database.schema(Self.schema).field("Z_PK", .int64, .identifier(auto: true))
        for column in 0..<10 { schema = schema.field(.string("i\(column)"), .int64, .required) }
        try await schema.create()
    }
}

/// Fluent's databases over one SQLite file, on SwiftNIO's shared event loops
/// and thread pool, as a Vapor application sets them up.
package struct FluentStack {
    let databases: Databases
    let database: any Database

    init(_ url: URL) {
        databases = Databases(threadPool: NIOThreadPool.singleton, on: MultiThreadedEventLoopGroup.singleton)
        databases.use(.sqlite(.file(url.path)), as: .sqlite)
        var logger = Logger(label: "fluent")
        logger.logLevel = .warning
        database = databases.database(logger: logger, on: MultiThreadedEventLoopGroup.singleton.any())!
    }

    /// Closes the file's connections.
    func shutdown() async {
        await databases.shutdownAsync()
    }

    /// Starts SwiftNIO's shared event loops and thread pool, which an
    /// application has running before it uses Fluent.
    static func startEventLoops() {
        _ = MultiThreadedEventLoopGroup.singleton.any()
        _ = NIOThreadPool.singleton
    }
}
