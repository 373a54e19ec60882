print("zeader")
