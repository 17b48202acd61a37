print("blaze")
