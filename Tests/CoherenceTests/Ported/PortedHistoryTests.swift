// Ported from alemar11/CoreDataPlus (commit f71b5f5706d8a17e9701b10d2fa2a56ede7d5e32)
// Tests/NSManagedObjectContextHistory_Tests.swift, by renaming only (rules in PortedModel.swift).
//
// CoreDataPlus's history helpers (Sources/NSManagedObjectContext+History.swift) are inlined as the
// Core Data calls they make:
//   historyTransactions(using: r)  -> r.resultType = .transactionsAndChanges;
//                                     (try context.execute(r) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]
//   mergeTransactions(ts)          -> for t in ts { result = (t.token, t.timestamp); guard t.changes != nil else { continue };
//                                     context.mergeChanges(fromContextDidSave: t.objectIDNotification()) }
//   deleteHistory(before: x)       -> r = .deleteHistory(before: x); r.resultType = .statusOnly;
//                                     (try context.execute(r) as! NSPersistentHistoryResult).result as! Bool
//   persons.materializeFaults()    -> for each fault `willAccessValue(forKey: nil)` (its per-object form)
// The test file's own fileprivate helpers (makeTransactionFetchRequest) are test code and ported with it.

import Coherence
import Foundation
import Testing

extension PortedCoreDataPlus {
  @Suite @MainActor final class ContextHistoryTests: PortedBaseTestCase {

  }
}

extension PortedCoreDataPlus.ContextHistoryTests {
  // Ported from alemar11/CoreDataPlus Tests/NSManagedObjectContextHistory_Tests.swift test_MergeHistoryAfterDate
  @Test func test_MergeHistoryAfterDate() async throws {
    // Given
    let id = UUID()
    let container1 = PortedOnDiskPersistentContainer.makeNew(id: id)
    let container2 = PortedOnDiskPersistentContainer.makeNew(id: id)
    let expectation1 = expectation(description: "\(#function)\(#line)")

    let viewContext1 = container1.viewContext
    viewContext1.name = "viewContext1"
    let viewContext2 = container2.viewContext
    viewContext2.name = "viewContext2"

    viewContext1.fillWithSampleData()

    try viewContext1.save()

    #expect(!viewContext1.registeredObjects.isEmpty)
    #expect(viewContext2.registeredObjects.isEmpty)

    // When, Then
    let cancellable = NotificationCenter.default.addObserver(
      forName: .NSManagedObjectContextObjectsDidChange, object: viewContext2, queue: nil
    ) { _ in
      expectation1.fulfill()
    }

    // viewContext2.historyTransactions(using: NSPersistentHistoryChangeRequest.fetchHistory(after: .distantPast)) — inlined:
    let historyFetchRequest = PersistentHistoryChangeRequest.fetchHistory(after: .distantPast)
    historyFetchRequest.resultType = .transactionsAndChanges
    let history = try viewContext2.execute(historyFetchRequest) as! PersistentHistoryResult
    let transactionsFromDistantPast = history.result as! [PersistentHistoryTransaction]
    #expect(transactionsFromDistantPast.count == 1)

    // viewContext2.mergeTransactions(transactionsFromDistantPast) — inlined:
    var result: (PersistentHistoryToken, Date)?
    for transaction in transactionsFromDistantPast {
      result = (transaction.token, transaction.timestamp)
      guard transaction.changes != nil else { continue }
      viewContext2.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
    }
    #expect(result != nil)
    #expect(viewContext2.registeredObjects.isEmpty)

    await fulfillment(of: [expectation1], timeout: 5)
    NotificationCenter.default.removeObserver(cancellable)
    // viewContext2.deleteHistory(before: result!.0) — inlined:
    let deleteHistoryRequest = PersistentHistoryChangeRequest.deleteHistory(before: result!.0)
    deleteHistoryRequest.resultType = .statusOnly
    let deleteResult = try viewContext2.execute(deleteHistoryRequest) as! PersistentHistoryResult
    let status = deleteResult.result as! Bool
    #expect(status)

    // cleaning avoiding SQLITE warnings
    let psc1 = viewContext1.persistentStoreCoordinator!
    for store in psc1.persistentStores {
      try psc1.remove(store)
    }

    let psc2 = viewContext2.persistentStoreCoordinator!
    for store in psc2.persistentStores {
      try psc2.remove(store)
    }

    try container1.destroy()
  }

  // Ported from alemar11/CoreDataPlus Tests/NSManagedObjectContextHistory_Tests.swift test_MergeHistoryAfterDateWithMultipleTransactions
  @Test func test_MergeHistoryAfterDateWithMultipleTransactions() async throws {
    // Given
    let id = UUID()
    let container1 = PortedOnDiskPersistentContainer.makeNew(id: id)
    let container2 = PortedOnDiskPersistentContainer.makeNew(id: id)
    let expectation1 = expectation(description: "\(#function)\(#line)")
    let expectation2 = expectation(description: "\(#function)\(#line)")
    let expectation3 = expectation(description: "\(#function)\(#line)")

    let viewContext1 = container1.viewContext
    viewContext1.name = "viewContext1"
    viewContext1.transactionAuthor = "\(#function)"
    let viewContext2 = container2.viewContext
    viewContext2.name = "viewContext2"

    let person1 = PortedPerson(context: viewContext1)
    person1.firstName = "Edythe"
    person1.lastName = "Moreton"

    let person2 = PortedPerson(context: viewContext1)
    person2.firstName = "Ellis"
    person2.lastName = "Khoury"

    try viewContext1.save()

    // When, Then

    // we don't care about the first insert because viewContext2 will fetch everything from the the db
    // try viewContext1.deleteHistory(before: .distantFuture) — inlined:
    let deleteAllRequest = PersistentHistoryChangeRequest.deleteHistory(before: .distantFuture)
    deleteAllRequest.resultType = .statusOnly
    _ = (try viewContext1.execute(deleteAllRequest) as! PersistentHistoryResult).result as! Bool

    let persons = try viewContext2.fetch(FetchRequest<PortedPerson>(entityName: "Person"))  // Person.fetchObjects(in:)
    // materialize all the objects to listen to updates/merges in addition to inserts and deletes
    // try persons.materializeFaults() — CoreDataPlus helper, inlined (per-object form):
    for person in persons where person.isFault {
      person.willAccessValue(forKey: nil)
    }
    #expect(persons.count == 2)

    let person3 = PortedPerson(context: viewContext1)
    person3.firstName = "Faron"
    person3.lastName = "Moreton"

    let person4 = PortedPerson(context: viewContext1)
    person4.firstName = "Darin"
    person4.lastName = "Meadow"

    let person5 = PortedPerson(context: viewContext1)
    person5.firstName = "Juliana"
    person5.lastName = "Pyke"

    try viewContext1.save()  // 3 inserts

    person1.firstName = person1.firstName + "*"

    try viewContext1.save()  // 1 update

    person2.managedObjectContext?.delete(person2)  // person2.delete()

    try viewContext1.save()  // 1 delete

    let cancellable = NotificationCenter.default.addObserver(
      forName: .NSManagedObjectContextObjectsDidChange, object: viewContext2, queue: nil
    ) { note in
      let info = note.userInfo ?? [:]
      #expect(note.object as? ManagedObjectContext === viewContext2)
      if !(info[NSInsertedObjectsKey] as? Set<ManagedObject> ?? []).isEmpty {
        expectation1.fulfill()
      } else if !(info[NSUpdatedObjectsKey] as? Set<ManagedObject> ?? []).isEmpty
        || !(info[NSRefreshedObjectsKey] as? Set<ManagedObject> ?? []).isEmpty
      {
        expectation2.fulfill()
      } else if !(info[NSDeletedObjectsKey] as? Set<ManagedObject> ?? []).isEmpty {
        expectation3.fulfill()
      }
    }

    // viewContext2.historyTransactions(using: NSPersistentHistoryChangeRequest.fetchHistory(after: .distantPast)) — inlined:
    let historyFetchRequest = PersistentHistoryChangeRequest.fetchHistory(after: .distantPast)
    historyFetchRequest.resultType = .transactionsAndChanges
    let history = try viewContext2.execute(historyFetchRequest) as! PersistentHistoryResult
    let transactionsFromDistantPast = history.result as! [PersistentHistoryTransaction]
    #expect(transactionsFromDistantPast.count == 3)

    // viewContext2.mergeTransactions(transactionsFromDistantPast) — inlined:
    var result: (PersistentHistoryToken, Date)?
    for transaction in transactionsFromDistantPast {
      result = (transaction.token, transaction.timestamp)
      guard transaction.changes != nil else { continue }
      viewContext2.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
    }
    #expect(result != nil)

    await fulfillment(of: [expectation1, expectation2, expectation3], timeout: 5)

    try viewContext2.save()
    //print(viewContext2.insertedObjects)

    NotificationCenter.default.removeObserver(cancellable)
    // viewContext2.deleteHistory(before: result!.0) — inlined:
    let deleteHistoryRequest = PersistentHistoryChangeRequest.deleteHistory(before: result!.0)
    deleteHistoryRequest.resultType = .statusOnly
    let status = (try viewContext2.execute(deleteHistoryRequest) as! PersistentHistoryResult).result as! Bool
    #expect(status)

    // cleaning avoiding SQLITE warnings
    let psc1 = viewContext1.persistentStoreCoordinator!
    for store in psc1.persistentStores {
      try psc1.remove(store)
    }

    let psc2 = viewContext2.persistentStoreCoordinator!
    for store in psc2.persistentStores {
      try psc2.remove(store)
    }

    try container1.destroy()
  }

  // Ported from alemar11/CoreDataPlus Tests/NSManagedObjectContextHistory_Tests.swift test_MergeHistoryAfterNilTokenWithoutAnyHistoryChanges
  @Test func test_MergeHistoryAfterNilTokenWithoutAnyHistoryChanges() throws {
    let container1 = PortedOnDiskPersistentContainer.makeNew()
    let stores = container1.persistentStoreCoordinator.persistentStores
    #expect(stores.count == 1)

    let currentToken = container1.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: stores)

    // it's a new store, there shouldn't be any transactions
    let requestToken: PersistentHistoryToken? = nil
    // historyTransactions(using:) — inlined:
    let request1 = PersistentHistoryChangeRequest.fetchHistory(after: requestToken)
    request1.resultType = .transactionsAndChanges
    let transactions = (try container1.viewContext.execute(request1) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
    #expect(transactions.isEmpty)

    #expect(currentToken != nil)
    // historyTransactions(using:) — inlined:
    let request2 = PersistentHistoryChangeRequest.fetchHistory(after: currentToken)
    request2.resultType = .transactionsAndChanges
    let transactionsAfterCurrentToken =
      (try container1.viewContext.execute(request2) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
    // mergeTransactions(_:) — inlined:
    var result: (PersistentHistoryToken, Date)?
    for transaction in transactionsAfterCurrentToken {
      result = (transaction.token, transaction.timestamp)
      guard transaction.changes != nil else { continue }
      container1.viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
    }
    #expect(result == nil)

    // mergeTransactions(_:) — inlined:
    var result2: (PersistentHistoryToken, Date)?
    for transaction in transactions {
      result2 = (transaction.token, transaction.timestamp)
      guard transaction.changes != nil else { continue }
      container1.viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
    }
    #expect(result2 == nil)

    try container1.destroy()
  }

  // Ported from alemar11/CoreDataPlus Tests/NSManagedObjectContextHistory_Tests.swift test_PersistentStoreWithHistoryTrackingEnabledGeneratesHistoryTokens
  @Test func test_PersistentStoreWithHistoryTrackingEnabledGeneratesHistoryTokens() async throws {
    // Given
    let psc = PersistentStoreCoordinator(managedObjectModel: model1)
    let storeURL = URL.newDatabaseURL(withID: UUID())
    // enable History Tracking
    let options: [String: NSObject] = [NSPersistentHistoryTrackingKey: true as NSNumber]  // PersistentStoreOptions
    try psc.addPersistentStore(ofType: SQLiteStoreType, configurationName: nil, at: storeURL, options: options)
    let expectation1 = expectation(description: "\(#function)\(#line)")
    let context = ManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    context.persistentStoreCoordinator = psc

    // When, Then
    let cancellable = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
      // ManagedObjectContextDidSaveObjects.historyToken: FB6840421 (missing documentation for "newChangeToken" key)
      #expect(note.userInfo?["newChangeToken"] as? PersistentHistoryToken != nil)
      expectation1.fulfill()
    }

    let person1 = PortedPerson(context: context)
    person1.firstName = "Edythe"
    person1.lastName = "Moreton"

    try context.save()
    await fulfillment(of: [expectation1], timeout: 5)
    NotificationCenter.default.removeObserver(cancellable)

    // context.deleteHistory() — inlined (deleteHistory(before: .distantFuture)):
    let deleteHistoryRequest = PersistentHistoryChangeRequest.deleteHistory(before: .distantFuture)
    deleteHistoryRequest.resultType = .statusOnly
    let result = (try context.execute(deleteHistoryRequest) as! PersistentHistoryResult).result as! Bool
    #expect(result)

    // cleaning avoiding SQLITE warnings
    for store in psc.persistentStores {
      try psc.remove(store)
    }
    try PersistentStoreCoordinator.destroyStore(at: storeURL)
  }

  // Ported from alemar11/CoreDataPlus Tests/NSManagedObjectContextHistory_Tests.swift test_DeleteHistoryAfterTransaction
  @Test func test_DeleteHistoryAfterTransaction() throws {
    let container = PortedOnDiskPersistentContainer.makeNew()
    let viewContext = container.viewContext

    // Transaction #1
    let car1 = PortedCar(context: viewContext)
    car1.maker = "FIAT"
    car1.model = "Panda"
    car1.numberPlate = "1"

    try viewContext.save()

    // Transaction #2
    let car2 = PortedCar(context: viewContext)
    car2.maker = "FIAT"
    car2.model = "Punto"
    car2.numberPlate = "2"

    try viewContext.save()

    // historyTransactions(using:) — inlined:
    let request1 = PersistentHistoryChangeRequest.fetchHistory(after: .distantPast)
    request1.resultType = .transactionsAndChanges
    let transactions1 = (try viewContext.execute(request1) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
    #expect(transactions1.count == 2)
    let firstTransaction1 = try #require(transactions1.first)
    // Removes all the transactions before the first one: no transactions are actually deleted
    // deleteHistory(before: firstTransaction1) — inlined:
    let delete1 = PersistentHistoryChangeRequest.deleteHistory(before: firstTransaction1)
    delete1.resultType = .statusOnly
    let result1 = (try viewContext.execute(delete1) as! PersistentHistoryResult).result as! Bool  // try XCTUnwrap(non-optional Bool)
    #expect(result1)

    // historyTransactions(using: .fetchHistory(after: .distantPast)) — inlined:
    let request2 = PersistentHistoryChangeRequest.fetchHistory(after: .distantPast)
    request2.resultType = .transactionsAndChanges
    let transactions2 = (try viewContext.execute(request2) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
    #expect(transactions2.count == 2)
    let lastTransaction2 = try #require(transactions2.last)
    // Removes all the transactions before the last one: 1 transaction gets deleted
    // deleteHistory(before: lastTransaction2) — inlined:
    let delete2 = PersistentHistoryChangeRequest.deleteHistory(before: lastTransaction2)
    delete2.resultType = .statusOnly
    let result2 = (try viewContext.execute(delete2) as! PersistentHistoryResult).result as! Bool  // try XCTUnwrap(non-optional Bool)
    #expect(result2)

    // historyTransactions(using:) — inlined:
    let request3 = PersistentHistoryChangeRequest.fetchHistory(after: .distantPast)
    request3.resultType = .transactionsAndChanges
    let transactions3 = (try viewContext.execute(request3) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
    #expect(transactions3.count == 1)
  }
}

#if PORTED_GAPS
// Tests that do not compile against Coherence with warnings as errors (Swift 6 mode);
// each names what is missing. Bodies unchanged from /work/ported (renaming only).

extension PortedCoreDataPlus.ContextHistoryTests {
  // NOT COMPILING: untyped `Predicate` (variables, parameter type `Predicate`, predicates on `token`);
  // NOT COMPILING: `CompoundPredicate(type:subpredicates:)`; `NSPersistentHistoryTokenExpiredError`; `PersistentHistoryTransaction.entityDescription(with:)`.
  // Ported from alemar11/CoreDataPlus Tests/NSManagedObjectContextHistory_Tests.swift test_FetchHistoryChangesUsingFetchRequest
  @Test func test_FetchHistoryChangesUsingFetchRequest() throws {
    // Given
    let id = UUID()
    let container1 = PortedOnDiskPersistentContainer.makeNew(id: id)
    let container2 = PortedOnDiskPersistentContainer.makeNew(id: id)

    let viewContext1 = container1.viewContext
    viewContext1.name = "viewContext1"
    viewContext1.transactionAuthor = "author1"

    let viewContext2 = container2.viewContext
    viewContext2.name = "viewContext2"
    viewContext2.transactionAuthor = "author2"

    let psc2 = container2.persistentStoreCoordinator
    let oldHistoryToken = try #require(psc2.currentPersistentHistoryToken(fromStores: psc2.persistentStores))

    viewContext1.fillWithSampleData()
    try viewContext1.save()

    let newHistoryToken = try #require(psc2.currentPersistentHistoryToken(fromStores: psc2.persistentStores))

    do {
      let request = PersistentHistoryChangeRequest.fetchHistory(after: oldHistoryToken)
      request.resultType = .transactionsAndChanges  // historyTransactions(using:)
      let allTransactions = (try viewContext2.execute(request) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
      #expect(allTransactions.count == 1)
    }

    do {
      let predicate = Predicate(format: "%K > %@", "token", oldHistoryToken)  // #keyPath(NSPersistentHistoryTransaction.token); NSPredicate -> Predicate
      let request = try PersistentHistoryChangeRequest.makeTransactionFetchRequest(
        predicate: predicate, with: viewContext2)
      request.resultType = .transactionsAndChanges  // historyTransactions(using:)
      _ = (try viewContext2.execute(request) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
      Issue.record("Behavior changed again! Investigate")
    } catch let error as NSError {
      #expect(
        error.code == NSPersistentHistoryTokenExpiredError,
        "Starting iOS 18/macOS 15, using the initial token in NSPredicate.init(format:_:) triggers a NSPersistentHistoryTokenExpiredError unless used with fetchHistory(after:)"
      )
    }

    do {
      let request = PersistentHistoryChangeRequest.fetchHistory(after: newHistoryToken)
      request.resultType = .transactionsAndChanges  // historyTransactions(using:)
      let allTransactions = (try viewContext2.execute(request) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
      #expect(allTransactions.count == 0)
    }

    do {
      let predicate = Predicate(format: "%K > %@", "token", newHistoryToken)
      let request = try PersistentHistoryChangeRequest.makeTransactionFetchRequest(
        predicate: predicate, with: viewContext2)
      request.resultType = .transactionsAndChanges
      let allTransactions = (try viewContext2.execute(request) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
      #expect(allTransactions.count == 0)
    }

    do {
      // fetch transactions where author is "author1"
      let request = try PersistentHistoryChangeRequest.makeTransactionFetchRequest(
        predicate: Predicate(format: "%K = %@", "author", "author1"),  // #keyPath(NSPersistentHistoryTransaction.author)
        with: viewContext2)
      request.resultType = .transactionsAndChanges
      let allTransactions = (try viewContext2.execute(request) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
      #expect(allTransactions.count == 1)

      // mergeTransactions(_:) — inlined:
      var result: (PersistentHistoryToken, Date)?
      for transaction in allTransactions {
        result = (transaction.token, transaction.timestamp)
        guard transaction.changes != nil else { continue }
        viewContext2.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
      }
      #expect(result != nil)
    }

    do {
      // fetch transactions where author is "author1" and contextName is "viewContext1"
      let predicate = Predicate(
        format: "%K = %@ AND %K = %@", "author", "author1",
        "contextName", "viewContext1")
      let request = try PersistentHistoryChangeRequest.makeTransactionFetchRequest(
        predicate: predicate, with: viewContext2)
      request.resultType = .transactionsAndChanges
      let allTransactions = (try viewContext2.execute(request) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
      #expect(allTransactions.count == 1)

      // mergeTransactions(_:) — inlined:
      var result: (PersistentHistoryToken, Date)?
      for transaction in allTransactions {
        result = (transaction.token, transaction.timestamp)
        guard transaction.changes != nil else { continue }
        viewContext2.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
      }
      #expect(result != nil)
      let lastMergedToken = result!.0
      #expect(newHistoryToken == lastMergedToken)
    }

    do {
      // fetch transactions where author is "author2" and contextName is "viewContext1"
      let predicate = Predicate(
        format: "%K = %@ AND %K = %@", "author", "author2",
        "contextName", "viewContext1")
      let request = try PersistentHistoryChangeRequest.makeTransactionFetchRequest(
        predicate: predicate, with: viewContext2)
      request.resultType = .transactionsAndChanges
      let allTransactions = (try viewContext2.execute(request) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
      #expect(allTransactions.isEmpty)
    }

    do {
      // fetch transactions where author is "author1" and token is newHistoryToken
      let predicate = CompoundPredicate(
        type: .and,
        subpredicates: [
          Predicate(format: "%K = %@", "token", newHistoryToken),
          Predicate(format: "%K = %@", "author", "author1"),
        ])
      let request = try PersistentHistoryChangeRequest.makeTransactionFetchRequest(
        predicate: predicate, with: viewContext2)
      request.resultType = .transactionsAndChanges
      let allTransactions = (try viewContext2.execute(request) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
      #expect(allTransactions.count == 1)

      // mergeTransactions(_:) — inlined:
      var result: (PersistentHistoryToken, Date)?
      for transaction in allTransactions {
        result = (transaction.token, transaction.timestamp)
        guard transaction.changes != nil else { continue }
        viewContext2.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
      }
      #expect(result != nil)
    }

    // cleaning avoiding SQLITE warnings
    let psc1 = viewContext1.persistentStoreCoordinator!
    for store in psc1.persistentStores {
      try psc1.remove(store)
    }

    for store in psc2.persistentStores {
      try psc2.remove(store)
    }

    try container1.destroy()
  }
}

// Ported from alemar11/CoreDataPlus Tests/NSManagedObjectContextHistory_Tests.swift (fileprivate test helpers)
extension PersistentHistoryChangeRequest {
  fileprivate final class func makeTransactionFetchRequest(predicate: Predicate, with context: ManagedObjectContext)
    throws -> PersistentHistoryChangeRequest
  {
    let request = try #require(Self.makeTransactionFetchRequest(with: context))
    request.predicate = predicate
    let transactionsRequest = PersistentHistoryChangeRequest.fetchHistory(withFetch: request)
    transactionsRequest.resultType = .transactionsOnly
    return transactionsRequest
  }

  /// Creates a NSFetchRequest for NSPersistentHistoryTransaction.
  /// - Note: context is used as hint to discover the Transaction entity.
  fileprivate final class func makeTransactionFetchRequest(with context: ManagedObjectContext) -> FetchRequest<
    FetchRequestResult
  >? {
    // https://developer.apple.com/videos/play/wwdc2019/230
    let transactionFetchRequest: FetchRequest<FetchRequestResult>
    if let request = PersistentHistoryTransaction.fetchRequest {
      transactionFetchRequest = request
    } else if let transactionEntityDescription = PersistentHistoryTransaction.entityDescription(with: context) {
      // ⚠️ NSPersistentHistoryTransaction.fetchRequest is nil during tests
      transactionFetchRequest = FetchRequest<FetchRequestResult>()
      transactionFetchRequest.entity = transactionEntityDescription
    } else {
      return nil
    }

    return transactionFetchRequest
  }
}

#endif  // PORTED_GAPS
