print("blaze-convert")
