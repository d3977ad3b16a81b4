"""Tables made for the tests of input limits: workbooks that pack tightly, Parquet files."""

from __future__ import annotations

import io
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq


def workbook(rows: int, *, text: str = "Player") -> bytes:
    """A one-column workbook of ``rows`` rows, its sheet written as a spreadsheet program would,
    with the cells inline; repeated rows pack tightly, as a zip bomb's do."""
    sheet = io.BytesIO()
    sheet.write(b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.'
                b'openxmlformats.org/spreadsheetml/2006/main"><sheetData>')  # fmt: skip
    sheet.write(b'<row><c t="inlineStr"><is><t>name</t></is></c></row>')
    sheet.write(f'<row><c t="inlineStr"><is><t>{text}</t></is></c></row>'.encode() * rows)
    sheet.write(b"</sheetData></worksheet>")
    main = "http://schemas.openxmlformats.org"
    package = f"{main}/package/2006"
    document = f"{main}/officeDocument/2006/relationships"
    members = {
        "[Content_Types].xml": f'<Types xmlns="{package}/content-types">'
        f'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        f'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
        f'officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/'
        f'sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.'
        f'worksheet+xml"/></Types>',
        "_rels/.rels": f'<Relationships xmlns="{package}/relationships"><Relationship Id="rId1" '
        f'Type="{document}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook xmlns="{main}/spreadsheetml/2006/main" xmlns:r='
        f'"{document}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="{package}/relationships">'
        f'<Relationship Id="rId1" Type="{document}/worksheet" Target="worksheets/sheet1.xml"/>'
        f"</Relationships>",
    }
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text_ in members.items():
            archive.writestr(name, text_)
        archive.writestr("xl/worksheets/sheet1.xml", sheet.getvalue())
    return stream.getvalue()


def parquet(table: pa.Table) -> bytes:
    stream = io.BytesIO()
    pq.write_table(table, stream)
    return stream.getvalue()
