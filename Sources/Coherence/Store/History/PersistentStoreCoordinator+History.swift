import Foundation

extension PersistentStoreCoordinator {
    /// The token of the last transaction of the first store among `stores`
    /// (every loaded store for `nil`) that keeps persistent history, as Core
    /// Data's `currentPersistentHistoryToken(fromStores:)`; `nil` when none
    /// does. Fetching the history after it returns what is saved from now on.
    /// <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/currentpersistenthistorytoken(fromstores:)>
    public func currentPersistentHistoryToken(fromStores stores: [any PersistentStore]?) -> PersistentHistoryToken? {
        let candidates = stores ?? persistentStores
        for case let store as any PersistentHistoryStore in candidates where store.tracksPersistentHistory {
            if let token = try? store.currentPersistentHistoryToken() { return token }
        }
        return nil
    }

    /// Runs a history request on the store its token names, or on the first
    /// loaded store that keeps history.
    func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let stores = persistentStores
        let candidates = request.token.map { token in stores.filter { $0.identifier == token.storeIdentifier } } ?? stores
        guard let store = candidates.first(where: { ($0 as? any PersistentHistoryStore)?.tracksPersistentHistory == true }) ?? candidates.first
        else { throw PersistentHistoryError.noHistoryStore }
        guard let historyStore = store as? any PersistentHistoryStore else {
            throw PersistentHistoryError.notSupported(storeType: store.type)
        }
        guard let fetchRequest = request.fetchRequest, !request.isDeletion else { return try historyStore.executeHistory(request) }
        // Core Data's fetch request on transactions or changes: read what
        // the rest of the request selects, with the changes the predicate
        // or the result needs, then select.
        let filter = try PersistentHistoryFetchFilter(fetchRequest)
        let read = PersistentHistoryChangeRequest(kind: request.kind, token: request.token)
        read.transactionFilter = request.transactionFilter
        read.resultType = filter.readsChanges || request.resultType.needsChanges ? .transactionsAndChanges : .transactionsOnly
        let selected = try filter.select(historyStore.executeHistory(read).transactions)
        let kept = request.resultType == .transactionsOnly || request.resultType.needsChanges
        let transactions = request.resultType.needsChanges ? selected : selected.map(\.withoutChanges)
        return PersistentHistoryResult(resultType: request.resultType, transactions: kept ? transactions : [], count: selected.count)
    }
}

extension ManagedObjectContext {
    /// Runs a persistent history request (fetch or delete) against the
    /// context's coordinator's store, as Core Data's `execute(_:)` with an
    /// `NSPersistentHistoryChangeRequest`; the result is a
    /// ``PersistentHistoryResult``. The standard Core Data loop:
    ///
    /// ```swift
    /// let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
    /// let result = try context.execute(request) as! PersistentHistoryResult
    /// for transaction in result.transactions {
    ///     viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
    ///     lastToken = transaction.token
    /// }
    /// ```
    ///
    /// Call it on the context's queue.
    /// - Throws: ``PersistentHistoryError/tokenExpired(_:)`` when the history
    ///   after the request's token was deleted; ``PersistentHistoryError/trackingNotEnabled(storeIdentifier:)``
    ///   for a store loaded without ``PersistentStoreDescription/persistentHistoryTracking``;
    ///   ``PersistentHistoryError/notSupported(storeType:)`` for the in-memory
    ///   store; ``StoreError`` for the database's errors.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/execute(_:)>
    @discardableResult
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentStoreResult {
        _assertOnQueue()
        guard let coordinator = persistentStoreCoordinator else { throw PersistentHistoryError.noHistoryStore }
        return try coordinator.execute(request)
    }
}
