import Coherence
import Foundation
import Testing

/// Behaviours where SQLite and PostgreSQL would differ if the shared SQL
/// store did not even them out, checked on every store (each found in a
/// review of the shared store).
@Suite("SQL dialect parity")
struct SQLDialectParityTests {
    /// Distinct rows sorted by a string: PostgreSQL cannot sort `SELECT
    /// DISTINCT` by an expression it does not select; the rows must still
    /// come back distinct and in order.
    @Test(arguments: StoreKind.allCases) func distinctRowsSortedByAString(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<Automobile>(sortBy: [SortDescriptor(\.make)])
            let makes = try context.fetchDictionaries(request, propertiesToFetch: ["make"], returnsDistinctResults: true)
            let expected = Array(Set(RunTimeQueryStack.inventory.map(\.0))).sorted()
            #expect(makes.map { $0["make"] as? String } == expected)
        }
    }

    /// Format predicates write booleans as numbers (`YES` is 1), as in
    /// Core Data: https://developer.apple.com/documentation/foundation/nspredicate
    @Test(arguments: StoreKind.allCases) func formatPredicatesCompareBooleansWithNumbers(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let electric = RunTimeQueryStack.inventory.filter(\.4).count
            #expect(electric > 0 && electric < RunTimeQueryStack.inventory.count)
            for format in ["isElectric == YES", "isElectric == 1", "isElectric != NO", "isElectric IN {1}", "isElectric BETWEEN {1, 1}"] {
                let request = FetchRequest(predicate: Predicate<Automobile>(format: format))
                #expect(try context.count(for: request) == electric, "\(format)")
            }
            let request = FetchRequest(predicate: Predicate<Automobile>(format: "isElectric == %@", NSNumber(value: false)))
            #expect(try context.count(for: request) == RunTimeQueryStack.inventory.count - electric)
        }
    }

    /// A batch insert linking two new rows to one destination through a
    /// one-to-one relationship: the last one keeps it, as if the rows were
    /// inserted one after another (and the destination points back at it).
    @Test(arguments: StoreKind.allCases) func batchInsertedOneToOneLinksKeepTheLastRow(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait { () throws in
            let badge = Badge(context: context)
            badge.number = 7
            try context.save()
            try context.execute(BatchInsertRequest<Employee>(objects: [
                ["name": "alice", "badge": badge.objectID], ["name": "bob", "badge": badge.objectID],
            ]))
            context.reset()
            let employees = try context.fetch(FetchRequest<Employee>(sortBy: [SortDescriptor(\.name)]))
            #expect(employees.map(\.name) == ["alice", "bob"])
            #expect(employees[0].badge == nil)
            #expect(employees[1].badge?.number == 7)
            let reloaded = try #require(try context.fetch(FetchRequest<Badge>()).first)
            #expect(reloaded.owner?.name == "bob")
        }
    }

    /// A migration adding a uniqueness constraint that saved rows already
    /// break is refused with a typed error, and the database is unchanged.
    @Test(arguments: StoreKind.databases) func aConstraintSavedRowsBreakIsRefused(store: StoreKind) throws {
        let database = try TestDatabase.new(store)
        let context = try database.context([Account.self])
        try context.performAndWait {
            for _ in 0..<2 { Account(context: context).email = "same@example.com" }
            try context.save()
        }
        #expect {
            try database.coordinator([UniqueAccount.self])
        } throws: { error in
            guard case StoreError.incompatibleModel(let reason) = error else { return false }
            return reason.contains("uniqueness constraint")
        }
        let reader = try database.context([Account.self])
        let count = try reader.performAndWait { try reader.count(for: FetchRequest<Account>()) }
        #expect(count == 2, "the rows are still there")
    }
}

/// An account, before its email became unique.
final class Account: ManagedObject {
    @Attribute var email = ""
}

/// The same entity, with its email unique.
final class UniqueAccount: ManagedObject {
    override class var entityName: String { "Account" }
    override class var uniquenessConstraints: [[String]] { [["email"]] }
    @Attribute var email = ""
}
