"""Parsing pieces and squares, with errors that quote the bad input."""

import pytest

from fastsnake.errors import InputError
from fastsnake.tour import Piece, parse_piece, parse_square, square_name


def test_piece_forms():
    assert parse_piece(["1,2"]).is_knight
    assert parse_piece(["2,1"]).name == "knight"
    assert parse_piece(["1,3"]).name == "camel"
    assert parse_piece(["1,2", "0,1"]).name == "wazir+knight"
    assert len(parse_piece(["1,2", "0,1"]).jump_list) == 12
    assert parse_piece(jumps="1,2").is_knight  # symmetry mode by default
    one_way = parse_piece(jumps="1,2; -2,1", asymmetric=True)
    assert one_way.jump_list == ((-2, 1), (1, 2)) and one_way.directed
    assert not parse_piece(jumps="1,2;-1,-2", asymmetric=True).directed


@pytest.mark.parametrize("kwargs,quoted", [
    ({"pieces": ["1;2"]}, "'1;2'"),
    ({"pieces": ["0,0"]}, "'0,0'"),
    ({"jumps": "1,2;x"}, "'x'"),
    ({"jumps": "0,0", "asymmetric": True}, "'0,0'"),
    ({"pieces": ["1,2"], "asymmetric": True}, "asymmetric applies to explicit jumps only"),
    ({}, "no piece given"),
])
def test_piece_errors(kwargs, quoted):
    with pytest.raises(InputError, match=quoted):
        parse_piece(**kwargs)


def test_squares():
    assert parse_square("a1", 8, 8) == 56  # bottom-left
    assert parse_square("h8", 8, 8) == 7
    assert parse_square("c10", 10, 5) == 2
    assert parse_square("0,0", 8, 8) == 0
    assert parse_square("2,3", 5, 5) == 13
    assert square_name(56, 8, 8) == "a1"
    assert square_name(5, 30, 30) == "0,5"
    for bad in ("i1", "a9", "8,0", "-1,0", "e", "1,2,3"):
        with pytest.raises(InputError, match=repr(bad)):
            parse_square(bad, 8, 8)
    with pytest.raises(InputError, match="26 wide"):
        parse_square("a1", 30, 30)


def test_colour_properties():
    assert Piece.leaper(1, 2).colour_changing and Piece.leaper(1, 3).colour_keeping
    assert not Piece.compound([(1, 2), (1, 1)]).colour_changing
