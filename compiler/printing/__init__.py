"""Print-and-play: cards laid out as PDF sheets (jinja2 templates, WeasyPrint), PNG previews."""
