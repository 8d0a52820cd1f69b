project = "Robot Book"
extensions = []
html_theme = "alabaster"
smartquotes = False
