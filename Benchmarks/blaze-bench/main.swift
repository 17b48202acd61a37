print("blaze-bench")
