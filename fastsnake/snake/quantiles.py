"""Quantiles of the normal and Student t distributions in plain Python: moved to
`fastsnake.study.quantiles` (every problem's studies share them); the names stay here for code
written against this module."""

from fastsnake.study.quantiles import SERIES_MAX_DF, normal_ppf, t_ppf

__all__ = ["SERIES_MAX_DF", "normal_ppf", "t_ppf"]
