"""Mail to the officer: a failed monthly run, or files it rejected. Off unless ``smtp_host`` and
``mail_to`` are set. A mail that cannot be sent is logged and never fails the job it reports."""

from __future__ import annotations

import logging
import smtplib
from email.message import EmailMessage

from ratings.wording import counted
from service.settings import MailOptions

log = logging.getLogger("ratings.mail")

TIMEOUT_SECONDS = 30


def notify(options: MailOptions, subject: str, body: str) -> bool:
    """Send one notice; whether it was sent (False when mail is off or the server refused)."""
    if not options.enabled:
        return False
    message = EmailMessage()
    message["From"] = options.sender
    message["To"] = ", ".join(options.recipients)
    message["Subject"] = f"[ratings] {subject}"
    message.set_content(body)
    try:
        with smtplib.SMTP(options.host, options.port, timeout=TIMEOUT_SECONDS) as server:
            if options.starttls:
                server.starttls()
            if options.user:
                server.login(options.user, options.password.get_secret_value())
            server.send_message(message)
    except (OSError, smtplib.SMTPException) as error:
        log.error(
            "cannot send mail",
            extra={"event": "mail_failed", "error": str(error), "subject": subject},
        )
        return False
    return True


def monthly_failed(options: MailOptions, error: BaseException) -> bool:
    text = str(error) or type(error).__name__
    return notify(
        options,
        "the monthly job failed",
        f"The monthly job failed; nothing it did was kept.\n\n{text}\n\n"
        "`ratings jobs` shows the recent runs.\n",
    )


def backup_failed(options: MailOptions, error: BaseException, folder: str) -> bool:
    text = str(error) or type(error).__name__
    return notify(
        options,
        "the scheduled backup failed",
        f"The scheduled backup into {folder} failed; the archives made before are kept.\n\n"
        f"{text}\n\n`ratings jobs` shows the newest backup; `ratings db backup` makes one by"
        " hand.\n",
    )


def files_rejected(options: MailOptions, period: str, rejected: list[str], inbox: str) -> bool:
    if not rejected:
        return False
    names = "\n".join(f"  {name}" for name in rejected)
    return notify(
        options,
        f"{counted(len(rejected), 'file')} rejected by the {period} run",
        f"The monthly job for {period} did not import these files:\n{names}\n\n"
        f"Each has its problems beside it in {inbox}/rejected (NAME.errors.txt).\n",
    )
