"""Images, the engine below `zoom_image`: opened safely, cropped, enlarged and read by OCR (`regions`)."""
