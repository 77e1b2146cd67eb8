import styles from "./library.module.css";

export type TemplateChoice = {
  id: string;
  name: string;
  summary: string;
  samples: { fires: readonly string[]; quiet: readonly string[] };
};

const SAMPLES_SHOWN = 2;

/**
 * The templates shipped with the product as radio cards: each with its summary and a few of its sample
 * lines (those it fires on, those it stays quiet on), so the choice is made on what it does.
 */
export function TemplatePicker(props: {
  templates: readonly TemplateChoice[];
  value: string;
  onChange: (id: string) => void;
}) {
  return (
    <fieldset className={styles.templates}>
      <legend className="sr-only">Template</legend>
      {props.templates.map((template) => {
        const inputId = `policy-template-${template.id}`;
        return (
          <div key={template.id} className={styles.template}>
            <label htmlFor={inputId}>
              <input
                id={inputId}
                type="radio"
                name="policy-template"
                value={template.id}
                checked={props.value === template.id}
                onChange={() => props.onChange(template.id)}
                aria-describedby={`${inputId}-summary`}
              />
              {template.name}
            </label>
            <p id={`${inputId}-summary`}>{template.summary}</p>
            <ul className={styles.samples} aria-label={`Sample lines for ${template.name}`}>
              {template.samples.fires.slice(0, SAMPLES_SHOWN).map((line) => (
                <li key={`f${line}`} className={styles.fires} title={line}>
                  <span className="sr-only">fires on: </span>
                  <span aria-hidden="true">✗ </span>
                  {line}
                </li>
              ))}
              {template.samples.quiet.slice(0, 1).map((line) => (
                <li key={`q${line}`} className={styles.quiet} title={line}>
                  <span className="sr-only">quiet on: </span>
                  <span aria-hidden="true">✓ </span>
                  {line}
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </fieldset>
  );
}
